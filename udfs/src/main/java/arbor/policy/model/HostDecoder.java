package arbor.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;
import arbor.policy.kernels.Exp;
import java.util.function.IntConsumer;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Qwen3Model#hidden}'s decoder stack in Java over float arrays, for the engine's vector
 * kernels. With the matmuls in Java, what was left to libtorch (norms, rotary embedding, SwiGLU,
 * residual adds, and a copy in and out of libtorch around each of a layer's seven matmuls) took
 * about a third of a batch-32 decode step on the calling thread while the kernel's other
 * threads waited; here it is a few passes over small arrays, shared over the same threads.
 *
 * <p>The maths is Qwen3Model's, and so is the batch invariance: a token's result depends on its
 * own row only, every sum runs in a fixed order (vector lanes, then the lanes in order) and the
 * sigmoid uses {@link Exp}, so any code path gives the same bits.
 */
public final class HostDecoder {

  /** Attention over the cache of one layer: q (B, T, nH, D), k and v (B, T, nKv, D). */
  public interface Attention {
    /** Writes k and v to the cache and returns (B, T, nH * D); may scale q in place. */
    float[] attend(int layer, float[] q, float[] k, float[] v, int t);
  }

  private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
  private static final int L = S.length();
  private static final FloatVector ONE = FloatVector.broadcast(S, 1f);
  /** Tokens per task of the element-wise passes. */
  private static final int ROWS_PER_TASK = 16;
  /**
   * Below this many values an element-wise pass stays on the calling thread: a decode step's
   * passes take microseconds, less than waking the kernel's other threads.
   */
  private static final int PARALLEL_VALUES = 1 << 17;

  private final Qwen3Model model;
  private final VectorLinear linear;
  private final ModelConfig config;
  private final double[] invFreq;
  private final float eps;
  private long version = -1;
  private Small[] small;
  private float[] finalNorm;

  /** A layer's norm weights and biases as Java arrays (biases may be null). */
  private record Small(float[] input, float[] post, float[] qNorm, float[] kNorm, float[] qBias,
      float[] kBias, float[] vBias, float[] oBias) {}

  public HostDecoder(Qwen3Model model, VectorLinear linear) {
    this.model = model;
    this.linear = linear;
    this.config = model.config();
    this.invFreq = model.ropeInverseFrequencies();
    this.eps = (float) config.rmsNormEps();
  }

  /**
   * Final-normed hidden states (B, T, hidden) for right-padded tokens (B, T) at {@code positions}
   * (one per token), in the tokens' manager.
   */
  public NDArray hidden(NDArray tokens, long[] positions, Attention attention) {
    refresh();
    int b = Math.toIntExact(tokens.getShape().get(0));
    int t = Math.toIntExact(tokens.getShape().get(1));
    int n = b * t;
    int hid = config.hiddenSize();
    int d = config.headDim();
    int heads = config.numHeads();
    int kvHeads = config.numKvHeads();
    float[] x = model.embed(tokens).toFloatArray();                  // (N, hidden)
    float[][] cosSin = rope(positions);
    for (int i = 0; i < config.numLayers(); i++) {
      Qwen3Model.Layer l = model.layer(i);
      Small w = small[i];
      float[] h = norm(x, n, hid, w.input());
      float[][] qkv = linear.multiply(h, n, new NDArray[] {l.q(), l.k(), l.v()},
          new float[][] {w.qBias(), w.kBias(), w.vBias()});
      float[] q = qkv[0];
      float[] k = qkv[1];
      float[] v = qkv[2];
      rows(n, (heads + kvHeads) * d, r -> {
        for (int j = 0; j < heads; j++) {
          headNormAndRotate(q, (r * heads + j) * d, w.qNorm(), cosSin, r);
        }
        for (int j = 0; j < kvHeads; j++) {
          headNormAndRotate(k, (r * kvHeads + j) * d, w.kNorm(), cosSin, r);
        }
      });
      float[] attn = attention.attend(i, q, k, v, t);
      add(x, linear.multiply(attn, n, l.o(), w.oBias()));
      float[] m = norm(x, n, hid, w.post());
      float[][] gateUp = linear.multiply(m, n, new NDArray[] {l.gate(), l.up()},
          new float[][] {null, null});
      float[] gate = gateUp[0];
      float[] up = gateUp[1];
      swiGlu(gate, up, n);
      add(x, linear.multiply(gate, n, l.down(), null));
    }
    return tokens.getManager().create(norm(x, n, hid, finalNorm), new Shape(b, t, hid));
  }

  /** Logits (rows, vocab) of final hidden states (rows, hidden), kept in Java for sampling. */
  public float[] logits(NDArray hidden) {
    int rows = Math.toIntExact(hidden.getShape().size() / config.hiddenSize());
    return linear.multiply(hidden.toFloatArray(), rows, model.headWeight(), null);
  }

  /** Re-reads the small weights after the learner changed them in place. */
  private void refresh() {
    long now = model.weightsVersion();
    if (now == version) {
      return;
    }
    small = new Small[config.numLayers()];
    for (int i = 0; i < small.length; i++) {
      Qwen3Model.Layer l = model.layer(i);
      small[i] = new Small(l.inputNorm().toFloatArray(), l.postNorm().toFloatArray(),
          floats(l.qNorm()), floats(l.kNorm()), floats(l.qBias()), floats(l.kBias()),
          floats(l.vBias()), floats(l.oBias()));
    }
    finalNorm = model.finalNormWeight().toFloatArray();
    version = now;
  }

  private static float[] floats(NDArray a) {
    return a == null ? null : a.toFloatArray();
  }

  /** cos and sin per token and pair of head dimensions, as {@link Qwen3Model#ropeTables}. */
  private float[][] rope(long[] positions) {
    int half = config.headDim() / 2;
    float[] cos = new float[positions.length * half];
    float[] sin = new float[positions.length * half];
    for (int p = 0; p < positions.length; p++) {
      for (int i = 0; i < half; i++) {
        double angle = (double) positions[p] * invFreq[i];
        cos[p * half + i] = (float) Math.cos(angle);
        sin[p * half + i] = (float) Math.sin(angle);
      }
    }
    return new float[][] {cos, sin};
  }

  /** The optional per-head norm, then the rotation of token r's head at {@code at}. */
  private void headNormAndRotate(float[] a, int at, float[] norm, float[][] cosSin, int r) {
    int d = config.headDim();
    int half = d / 2;
    if (norm != null) {
      normRow(a, at, d, norm, a, at);
    }
    float[] cos = cosSin[0];
    float[] sin = cosSin[1];
    for (int i = 0; i < half; i++) {
      float c = cos[r * half + i];
      float s = sin[r * half + i];
      float x1 = a[at + i];
      float x2 = a[at + half + i];
      a[at + i] = x1 * c + -x2 * s;
      a[at + half + i] = x2 * c + x1 * s;
    }
  }

  /** RMSNorm of each of n rows of {@code width}: x / sqrt(mean(x^2) + eps) * w. */
  private float[] norm(float[] x, int n, int width, float[] weight) {
    float[] y = new float[x.length];
    rows(n, width, r -> normRow(x, r * width, width, weight, y, r * width));
    return y;
  }

  private void normRow(float[] x, int at, int width, float[] weight, float[] y, int to) {
    FloatVector acc = FloatVector.zero(S);
    int whole = width / L * L;
    for (int e = 0; e < whole; e += L) {
      FloatVector v = FloatVector.fromArray(S, x, at + e);
      acc = v.fma(v, acc);
    }
    float sum = 0f;
    for (float lane : acc.toArray()) {
      sum += lane;
    }
    for (int e = whole; e < width; e++) {
      sum = Math.fma(x[at + e], x[at + e], sum);
    }
    float rms = (float) Math.sqrt(sum / width + eps);
    for (int e = 0; e < width; e++) {
      y[to + e] = x[at + e] / rms * weight[e];
    }
  }

  /** gate = silu(gate) * up, in place, for n rows. */
  private void swiGlu(float[] gate, float[] up, int n) {
    int width = gate.length / n;
    rows(n, width, r -> {
      int end = (r + 1) * width;
      int e = r * width;
      for (; e + L <= end; e += L) {
        FloatVector g = FloatVector.fromArray(S, gate, e);
        FloatVector sigmoid = ONE.div(Exp.of(g.neg()).add(1f));
        g.mul(sigmoid).mul(FloatVector.fromArray(S, up, e)).intoArray(gate, e);
      }
      for (; e < end; e++) {
        float g = gate[e];
        gate[e] = g * (1f / (1f + Exp.of(-g))) * up[e];
      }
    });
  }

  private static void add(float[] x, float[] y) {
    for (int i = 0; i < x.length; i++) {
      x[i] += y[i];
    }
  }

  /**
   * Runs {@code row} for each of n rows of {@code width} values: on the caller for small passes,
   * else in groups of rows over the kernel's threads.
   */
  private void rows(int n, int width, IntConsumer row) {
    if ((long) n * width < PARALLEL_VALUES) {
      for (int r = 0; r < n; r++) {
        row.accept(r);
      }
      return;
    }
    int tasks = (n + ROWS_PER_TASK - 1) / ROWS_PER_TASK;
    linear.parallel().forEach(tasks, i -> {
      for (int r = i * ROWS_PER_TASK; r < Math.min(n, (i + 1) * ROWS_PER_TASK); r++) {
        row.accept(r);
      }
    });
  }


}
