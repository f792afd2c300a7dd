package arbor.policy.model;

import arbor.policy.files.HostTensor;
import java.util.Map;

/**
 * An independent forward pass with plain Java arrays and loops (no DJL), written from the
 * Qwen3 architecture description, to check {@link Qwen3Model} against. Slow and obvious.
 */
final class NaiveReference {

  private final ModelConfig c;
  private final Map<String, HostTensor> w;

  NaiveReference(ModelConfig c, Map<String, HostTensor> weights) {
    this.c = c;
    this.w = weights;
  }

  /** Logits [T][vocab] for one sequence. */
  float[][] logits(int[] tokens) {
    int t = tokens.length;
    int h = c.hiddenSize();
    double[][] x = new double[t][h];
    float[] emb = w.get("model.embed_tokens.weight").values();
    for (int i = 0; i < t; i++) {
      for (int j = 0; j < h; j++) {
        x[i][j] = emb[tokens[i] * h + j];
      }
    }
    for (int l = 0; l < c.numLayers(); l++) {
      String p = "model.layers." + l + ".";
      double[][] a = new double[t][];
      for (int i = 0; i < t; i++) {
        a[i] = norm(x[i], get(p + "input_layernorm.weight"));
      }
      double[][] attn = attention(a, p);
      for (int i = 0; i < t; i++) {
        double[] o = matVec(get(p + "self_attn.o_proj.weight"), opt(p + "self_attn.o_proj.bias"),
            attn[i], h);
        for (int j = 0; j < h; j++) {
          x[i][j] += o[j];
        }
        double[] m = norm(x[i], get(p + "post_attention_layernorm.weight"));
        int inter = c.intermediateSize();
        double[] gate = matVec(get(p + "mlp.gate_proj.weight"), null, m, inter);
        double[] up = matVec(get(p + "mlp.up_proj.weight"), null, m, inter);
        double[] act = new double[inter];
        for (int k = 0; k < inter; k++) {
          act[k] = gate[k] / (1 + Math.exp(-gate[k])) * up[k];
        }
        double[] down = matVec(get(p + "mlp.down_proj.weight"), null, act, h);
        for (int j = 0; j < h; j++) {
          x[i][j] += down[j];
        }
      }
    }
    float[] headW = c.tieWordEmbeddings() ? emb : get("lm_head.weight");
    float[][] out = new float[t][];
    for (int i = 0; i < t; i++) {
      double[] logits = matVec(headW, null, norm(x[i], get("model.norm.weight")), c.vocabSize());
      out[i] = new float[logits.length];
      for (int v = 0; v < logits.length; v++) {
        out[i][v] = (float) logits[v];
      }
    }
    return out;
  }

  private double[][] attention(double[][] a, String p) {
    int t = a.length;
    int d = c.headDim();
    int nH = c.numHeads();
    int nKv = c.numKvHeads();
    double[][][] q = new double[t][][];
    double[][][] k = new double[t][][];
    double[][][] v = new double[t][][];
    for (int i = 0; i < t; i++) {
      q[i] = heads(matVec(get(p + "self_attn.q_proj.weight"), opt(p + "self_attn.q_proj.bias"),
          a[i], nH * d), nH, d);
      k[i] = heads(matVec(get(p + "self_attn.k_proj.weight"), opt(p + "self_attn.k_proj.bias"),
          a[i], nKv * d), nKv, d);
      v[i] = heads(matVec(get(p + "self_attn.v_proj.weight"), opt(p + "self_attn.v_proj.bias"),
          a[i], nKv * d), nKv, d);
      for (int hh = 0; hh < nH; hh++) {
        if (c.qkNorm()) {
          q[i][hh] = norm(q[i][hh], get(p + "self_attn.q_norm.weight"));
        }
        q[i][hh] = rope(q[i][hh], i);
      }
      for (int hh = 0; hh < nKv; hh++) {
        if (c.qkNorm()) {
          k[i][hh] = norm(k[i][hh], get(p + "self_attn.k_norm.weight"));
        }
        k[i][hh] = rope(k[i][hh], i);
      }
    }
    return causalAttention(q, k, v);
  }

  /**
   * Causal grouped-query attention of q [T][nH][D] over k, v [T][nKv][D]: for each position and
   * head, the softmax of scaled scores over positions up to it, times the values. [T][nH * D].
   */
  static double[][] causalAttention(double[][][] q, double[][][] k, double[][][] v) {
    int t = q.length;
    int nH = q[0].length;
    int nKv = k[0].length;
    int d = q[0][0].length;
    double[][] out = new double[t][nH * d];
    for (int i = 0; i < t; i++) {
      for (int hh = 0; hh < nH; hh++) {
        int kvh = hh / (nH / nKv);
        double[] s = new double[i + 1];
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j <= i; j++) {
          double dot = 0;
          for (int e = 0; e < d; e++) {
            dot += q[i][hh][e] * k[j][kvh][e];
          }
          s[j] = dot / Math.sqrt(d);
          max = Math.max(max, s[j]);
        }
        double sum = 0;
        for (int j = 0; j <= i; j++) {
          s[j] = Math.exp(s[j] - max);
          sum += s[j];
        }
        for (int j = 0; j <= i; j++) {
          for (int e = 0; e < d; e++) {
            out[i][hh * d + e] += s[j] / sum * v[j][kvh][e];
          }
        }
      }
    }
    return out;
  }

  /** Rotates pairs (e, e + d/2) by pos * theta^(-2e/d), with the config's rope scaling. */
  private double[] rope(double[] x, int pos) {
    int d = x.length;
    double[] out = new double[d];
    for (int e = 0; e < d / 2; e++) {
      double freq = Math.pow(c.ropeTheta(), -2.0 * e / d);
      if (c.ropeScaling() != null && c.ropeScaling().type().equals("linear")) {
        freq /= c.ropeScaling().factor();
      }
      double ang = pos * freq;
      out[e] = x[e] * Math.cos(ang) - x[e + d / 2] * Math.sin(ang);
      out[e + d / 2] = x[e + d / 2] * Math.cos(ang) + x[e] * Math.sin(ang);
    }
    return out;
  }

  private static double[][] heads(double[] flat, int n, int d) {
    double[][] out = new double[n][d];
    for (int i = 0; i < n; i++) {
      System.arraycopy(flat, i * d, out[i], 0, d);
    }
    return out;
  }

  private double[] norm(double[] x, float[] weight) {
    double ms = 0;
    for (double v : x) {
      ms += v * v;
    }
    double inv = 1 / Math.sqrt(ms / x.length + c.rmsNormEps());
    double[] out = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = x[i] * inv * weight[i];
    }
    return out;
  }

  /** W (out x in, row-major) times x, plus bias. */
  private static double[] matVec(float[] wt, float[] bias, double[] x, int out) {
    double[] y = new double[out];
    int in = x.length;
    for (int o = 0; o < out; o++) {
      double s = bias == null ? 0 : bias[o];
      for (int i = 0; i < in; i++) {
        s += wt[o * in + i] * x[i];
      }
      y[o] = s;
    }
    return y;
  }

  private float[] get(String name) {
    HostTensor t = w.get(name);
    if (t == null) {
      throw new IllegalStateException("reference: no tensor " + name);
    }
    return t.values();
  }

  private float[] opt(String name) {
    HostTensor t = w.get(name);
    return t == null ? null : t.values();
  }
}
