package arbor.policy.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;
import arbor.policy.model.Qwen3Model;
import java.util.Arrays;
import arbor.policy.model.Parallel;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Paged attention in Java for the engine's vector kernel: like {@link PagedBatch}, a forward over
 * several sequences whose row i adds {@code counts[i]} tokens at positions {@code starts[i]}...,
 * but its keys and values live in {@link HeapKv} and each query attends over its sequence's
 * blocks where they are: nothing is gathered or padded, and a decode step and a prefill chunk
 * run the same code.
 *
 * <p>Batch-invariant by construction: a query's result depends on its own vector and the keys
 * and values it may see, never on the other rows, on padding, or on which thread computes it.
 * Every sum runs in position order (a score over the head dimensions in order, the softmax's sum
 * lane by lane over aligned positions, a weighted value over positions), and the exponential is
 * {@link #exp}, made of IEEE operations only, so the interpreter, C1 and C2, one lane or sixteen,
 * give the same bits. The vectorised path needs the block size and the head dimension to be
 * multiples of the vector length; other shapes (the tests' tiny models) take the scalar path,
 * always the same one for a given engine.
 */
final class VectorAttention implements Qwen3Model.KvSource {

  private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
  private static final int L = S.length();

  private final HeapKv kv;
  private final int[][] tables;
  private final int[] starts;
  private final int[] counts;
  private final Parallel threads;
  private final boolean vectorised;

  /**
   * @param tables each row's blocks, covering at least {@code starts[i] + counts[i]} positions
   * @param threads whose threads share the queries
   */
  VectorAttention(HeapKv kv, int[][] tables, int[] starts, int[] counts, Parallel threads) {
    this.kv = kv;
    this.tables = tables;
    this.starts = starts;
    this.counts = counts;
    this.threads = threads;
    this.vectorised = vectorises(kv.blockSize(), kv.headDim());
  }

  /** Whether blocks of {@code blockSize} positions and heads of {@code headDim} take the vector path. */
  static boolean vectorises(int blockSize, int headDim) {
    return blockSize % L == 0 && headDim % L == 0;
  }

  @Override
  public NDArray attention(Qwen3Model model, int layer, NDArray q, NDArray k, NDArray v) {
    long[] shape = q.getShape().getShape();                         // (B, nH, T, D)
    int n = tables.length;
    int heads = (int) shape[1];
    int t = (int) shape[2];
    int d = kv.headDim();
    int kvHeads = kv.kvHeads();
    int group = heads / kvHeads;
    int bs = kv.blockSize();
    float[] qs = q.toFloatArray();
    float[] ks = k.toFloatArray();                                  // (B, nKv, T, D)
    float[] vs = v.toFloatArray();
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < counts[i]; j++) {
        int p = starts[i] + j;
        for (int h = 0; h < kvHeads; h++) {
          kv.write(layer, tables[i][p / bs], p % bs, h, ks, vs, ((i * kvHeads + h) * t + j) * d);
        }
      }
    }
    float scale = (float) (1.0 / Math.sqrt(d));
    // Padded queries (beyond a row's count) stay zero: finite, and ignored by the caller.
    float[] out = new float[n * t * heads * d];
    threads.forEach(n * heads, task -> {
      int i = task / heads;
      int h = task % heads;
      float[] scores = new float[(starts[i] + counts[i] + bs - 1) / bs * bs];
      float[] query = new float[d];
      for (int j = 0; j < counts[i]; j++) {
        int from = ((i * heads + h) * t + j) * d;
        for (int e = 0; e < d; e++) {
          query[e] = qs[from + e] * scale;
        }
        attend(layer, tables[i], starts[i] + j + 1, h / group, query, scores, out,
            ((i * t + j) * heads + h) * d);
      }
    });
    return q.getManager().create(out, new Shape(n, t, (long) heads * d));
  }

  /**
   * One query of kv head {@code h} over positions [0, visible) of a sequence's blocks; writes
   * headDim outputs to {@code out} at {@code at}. {@code scores} holds whole blocks.
   */
  private void attend(int layer, int[] table, int visible, int h, float[] query, float[] scores,
      float[] out, int at) {
    int bs = kv.blockSize();
    int blocks = (visible + bs - 1) / bs;
    if (vectorised) {
      scoresVector(layer, table, blocks, h, query, scores);
    } else {
      for (int b = 0; b < blocks; b++) {
        int block = table[b];
        scoresScalar(kv.keys(layer, block), kv.offset(block, h), query, scores, b * bs);
      }
    }
    float max = vectorised ? maxVector(scores, visible) : Float.NEGATIVE_INFINITY;
    for (int j = vectorised ? visible / L * L : 0; j < visible; j++) {
      max = Math.max(max, scores[j]);
    }
    if (vectorised) {
      weightedVector(layer, table, visible, h, scores, expVector(scores, visible, max), out, at);
    } else {
      weightedScalar(layer, table, visible, h, scores, expScalar(scores, visible, max), out, at);
    }
  }

  // The vector loops below run four independent chains of multiply-adds side by side (four
  // vectors of positions, or four of dimensions), so the adds' latency overlaps; each element
  // still gets one chain in the same order as in the scalar loops.

  /**
   * Scores of a query over whole blocks: for each position, the products over the head
   * dimensions in order. Chunk c is the c-th vector of positions, at {@code scores[c * L]}.
   */
  private void scoresVector(int layer, int[] table, int blocks, int h, float[] query,
      float[] scores) {
    int bs = kv.blockSize();
    int d = kv.headDim();
    int perBlock = bs / L;
    int chunks = blocks * perBlock;
    int c = 0;
    for (; c + 4 <= chunks; c += 4) {
      float[] k0 = keysOf(layer, table, c);
      float[] k1 = keysOf(layer, table, c + 1);
      float[] k2 = keysOf(layer, table, c + 2);
      float[] k3 = keysOf(layer, table, c + 3);
      int o0 = keyOffset(table, h, c);
      int o1 = keyOffset(table, h, c + 1);
      int o2 = keyOffset(table, h, c + 2);
      int o3 = keyOffset(table, h, c + 3);
      FloatVector a0 = FloatVector.zero(S);
      FloatVector a1 = a0;
      FloatVector a2 = a0;
      FloatVector a3 = a0;
      for (int e = 0; e < d; e++) {
        FloatVector q = FloatVector.broadcast(S, query[e]);
        a0 = q.fma(FloatVector.fromArray(S, k0, o0 + e * bs), a0);
        a1 = q.fma(FloatVector.fromArray(S, k1, o1 + e * bs), a1);
        a2 = q.fma(FloatVector.fromArray(S, k2, o2 + e * bs), a2);
        a3 = q.fma(FloatVector.fromArray(S, k3, o3 + e * bs), a3);
      }
      a0.intoArray(scores, c * L);
      a1.intoArray(scores, (c + 1) * L);
      a2.intoArray(scores, (c + 2) * L);
      a3.intoArray(scores, (c + 3) * L);
    }
    for (; c < chunks; c++) {
      float[] k = keysOf(layer, table, c);
      int o = keyOffset(table, h, c);
      FloatVector a = FloatVector.zero(S);
      for (int e = 0; e < d; e++) {
        a = FloatVector.broadcast(S, query[e]).fma(FloatVector.fromArray(S, k, o + e * bs), a);
      }
      a.intoArray(scores, c * L);
    }
  }

  /** The largest of the scores in whole vectors below {@code visible} (a maximum is exact). */
  private static float maxVector(float[] scores, int visible) {
    FloatVector m = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
    for (int j = 0; j + L <= visible; j += L) {
      m = m.max(FloatVector.fromArray(S, scores, j));
    }
    return m.reduceLanes(VectorOperators.MAX);
  }

  private float[] keysOf(int layer, int[] table, int chunk) {
    return kv.keys(layer, table[chunk / (kv.blockSize() / L)]);
  }

  private int keyOffset(int[] table, int h, int chunk) {
    int perBlock = kv.blockSize() / L;
    return kv.offset(table[chunk / perBlock], h) + chunk % perBlock * L;
  }

  /**
   * {@code out[at..] = sum over positions of weight * value / sum}, positions in order; four
   * vectors of dimensions at a time.
   */
  private void weightedVector(int layer, int[] table, int visible, int h, float[] weights,
      float sum, float[] out, int at) {
    int bs = kv.blockSize();
    int d = kv.headDim();
    int blocks = (visible + bs - 1) / bs;
    int c = 0;
    for (; c + 4 * L <= d; c += 4 * L) {
      FloatVector a0 = FloatVector.zero(S);
      FloatVector a1 = a0;
      FloatVector a2 = a0;
      FloatVector a3 = a0;
      for (int b = 0; b < blocks; b++) {
        int block = table[b];
        float[] vs = kv.values(layer, block);
        int o = kv.offset(block, h) + c;
        int slots = Math.min(bs, visible - b * bs);
        for (int s = 0; s < slots; s++) {
          FloatVector w = FloatVector.broadcast(S, weights[b * bs + s]);
          int v = o + s * d;
          a0 = w.fma(FloatVector.fromArray(S, vs, v), a0);
          a1 = w.fma(FloatVector.fromArray(S, vs, v + L), a1);
          a2 = w.fma(FloatVector.fromArray(S, vs, v + 2 * L), a2);
          a3 = w.fma(FloatVector.fromArray(S, vs, v + 3 * L), a3);
        }
      }
      a0.div(sum).intoArray(out, at + c);
      a1.div(sum).intoArray(out, at + c + L);
      a2.div(sum).intoArray(out, at + c + 2 * L);
      a3.div(sum).intoArray(out, at + c + 3 * L);
    }
    for (; c < d; c += L) {
      FloatVector a = FloatVector.zero(S);
      for (int b = 0; b < blocks; b++) {
        int block = table[b];
        float[] vs = kv.values(layer, block);
        int o = kv.offset(block, h) + c;
        int slots = Math.min(bs, visible - b * bs);
        for (int s = 0; s < slots; s++) {
          a = FloatVector.broadcast(S, weights[b * bs + s])
              .fma(FloatVector.fromArray(S, vs, o + s * d), a);
        }
      }
      a.div(sum).intoArray(out, at + c);
    }
  }

  private void weightedScalar(int layer, int[] table, int visible, int h, float[] weights,
      float sum, float[] out, int at) {
    int bs = kv.blockSize();
    int d = kv.headDim();
    int blocks = (visible + bs - 1) / bs;
    for (int c = 0; c < d; c++) {
      float acc = 0f;
      for (int b = 0; b < blocks; b++) {
        int block = table[b];
        float[] vs = kv.values(layer, block);
        int o = kv.offset(block, h) + c;
        int slots = Math.min(bs, visible - b * bs);
        for (int s = 0; s < slots; s++) {
          acc = Math.fma(weights[b * bs + s], vs[o + s * d], acc);
        }
      }
      out[at + c] = acc / sum;
    }
  }

  private void scoresScalar(float[] keys, int o, float[] query, float[] scores, int to) {
    int bs = kv.blockSize();
    int d = kv.headDim();
    for (int j = 0; j < bs; j++) {
      float acc = 0f;
      for (int e = 0; e < d; e++) {
        acc = Math.fma(query[e], keys[o + e * bs + j], acc);
      }
      scores[to + j] = acc;
    }
  }

  /**
   * Replaces scores [0, visible) by exp(score - max) and the rest of the last vector by zeros;
   * returns their sum, lane by lane. (No masked operations: C2 leaves some of them to Java code.)
   */
  private static float expVector(float[] scores, int visible, float max) {
    int end = (visible + L - 1) / L * L;
    for (int j = 0; j < end; j += L) {
      exp(FloatVector.fromArray(S, scores, j).sub(max)).intoArray(scores, j);
    }
    Arrays.fill(scores, visible, end, 0f);
    FloatVector sums = FloatVector.zero(S);
    for (int j = 0; j < end; j += L) {
      sums = sums.add(FloatVector.fromArray(S, scores, j));
    }
    float sum = 0f;
    for (float lane : sums.toArray()) {
      sum += lane;
    }
    return sum;
  }

  private static float expScalar(float[] scores, int visible, float max) {
    float sum = 0f;
    for (int j = 0; j < visible; j++) {
      scores[j] = exp(scores[j] - max);
      sum += scores[j];
    }
    return sum;
  }

  // exp(x) for x <= 0: 2^n * e^r with n = round(x / ln 2), r = x - n ln 2 (ln 2 in two parts, so
  // r is nearly exact), e^r by its Taylor series to degree 7 (|r| <= 0.35: error ~1e-8).
  private static final float MIN_X = -87f;
  private static final float LOG2E = 1.44269504f;
  private static final float LN2_HI = 0.693359375f;
  private static final float LN2_LO = -2.12194440e-4f;
  /** 1.5 * 2^23: adding and subtracting it rounds a float of magnitude < 2^22 to an integer. */
  private static final float ROUND = 12582912f;
  private static final float C7 = 1f / 5040;
  private static final float C6 = 1f / 720;
  private static final float C5 = 1f / 120;
  private static final float C4 = 1f / 24;
  private static final float C3 = 1f / 6;
  private static final float C2 = 0.5f;

  /**
   * e^x for x <= 0 (below -87, as if -87: under 1e-37 and the softmax's sum is at least 1),
   * with the same operations as {@link #exp(FloatVector)}, so both give the same bits.
   */
  static float exp(float x) {
    x = Math.max(x, MIN_X);
    float n = Math.fma(x, LOG2E, ROUND) - ROUND;
    float r = Math.fma(n, -LN2_HI, x);
    r = Math.fma(n, -LN2_LO, r);
    float p = Math.fma(C7, r, C6);
    p = Math.fma(p, r, C5);
    p = Math.fma(p, r, C4);
    p = Math.fma(p, r, C3);
    p = Math.fma(p, r, C2);
    p = Math.fma(p, r, 1f);
    p = Math.fma(p, r, 1f);
    return p * Float.intBitsToFloat(((int) n + 127) << 23);
  }

  static FloatVector exp(FloatVector x) {
    x = x.max(MIN_X);
    FloatVector n = x.fma(LOG2E, ROUND).sub(ROUND);
    FloatVector r = n.fma(FloatVector.broadcast(S, -LN2_HI), x);
    r = n.fma(FloatVector.broadcast(S, -LN2_LO), r);
    FloatVector p = r.fma(C7, C6);
    p = p.fma(r, FloatVector.broadcast(S, C5));
    p = p.fma(r, FloatVector.broadcast(S, C4));
    p = p.fma(r, FloatVector.broadcast(S, C3));
    p = p.fma(r, FloatVector.broadcast(S, C2));
    p = p.fma(r, FloatVector.broadcast(S, 1f));
    p = p.fma(r, FloatVector.broadcast(S, 1f));
    IntVector bits = ((IntVector) n.convert(VectorOperators.F2I, 0)).add(127)
        .lanewise(VectorOperators.LSHL, 23);
    return p.mul(bits.reinterpretAsFloats());
  }
}
