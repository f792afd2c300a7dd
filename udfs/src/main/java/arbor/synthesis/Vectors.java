package arbor.synthesis;

/** Small vector arithmetic on embeddings. */
public final class Vectors {
  private Vectors() {}

  public static float[] normalised(float[] v) {
    double norm = 0;
    for (float x : v) norm += (double) x * x;
    norm = Math.sqrt(norm);
    float[] out = new float[v.length];
    if (norm == 0) return out;
    for (int i = 0; i < v.length; i++) out[i] = (float) (v[i] / norm);
    return out;
  }

  /** Cosine similarity of two unit vectors: their dot product. */
  public static double dot(float[] a, float[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException("vectors have different lengths: (" + a.length + ", " + b.length + ")");
    }
    double s = 0;
    for (int i = 0; i < a.length; i++) s += (double) a[i] * b[i];
    return s;
  }
}
