package arbor.policy.kernels;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * A weight W of HF's (out, in) layout, repacked once for {@code x W^T} with the Vector API: the
 * output columns in panels of three vectors, each panel stored input-major, so the inner loop
 * reads one contiguous row of the panel per input index and multiplies it with several rows of
 * x at once (eight rows with 512-bit vectors, four with narrower ones).
 *
 * <p>Every output element is one chain of fused multiply-adds in input order, started at zero
 * and computed by one thread; which kernel, thread or vector width computes it, and what other
 * rows are in the batch, never changes its bits. So a row gets the same result in a decode step
 * of 1 or 64 sequences and in a prefill chunk, without padding the batch.
 *
 * <p>Why not libtorch: its CPU GEMM repacks the weight on every call, which at the few dozen
 * rows of a decode step costs as much as the arithmetic (see docs/model.md).
 */
public final class PackedMatrix {

  private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
  private static final int L = S.length();
  /** Output columns per panel. */
  private static final int NR = 3 * L;
  /** Rows per multi-row kernel: eight need 24 accumulators, which only 32 registers hold. */
  private static final int MR = L >= 16 ? 8 : 4;
  /** Below this many multiply-adds a product runs on the calling thread alone. */
  private static final long PARALLEL_WORK = 1L << 20;
  /** Chunks of panels per thread in a product shared over threads. */
  private static final int CHUNKS_PER_THREAD = 4;

  private final int out;
  private final int in;
  private final int panels;
  private final float[] packed;

  /** Packs {@code weight}, row-major (out, in). */
  public PackedMatrix(float[] weight, int out, int in) {
    if ((long) out * in != weight.length) {
      throw new IllegalArgumentException("weight has " + weight.length + " values, not "
          + out + " x " + in);
    }
    this.out = out;
    this.in = in;
    this.panels = (out + NR - 1) / NR;
    long size = (long) panels * in * NR;
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a " + out + " x " + in + " weight is too large to pack"
          + " into one Java array");
    }
    this.packed = new float[(int) size];
    for (int c = 0; c < out; c++) {
      int base = (c / NR) * in * NR + c % NR;
      for (int k = 0; k < in; k++) {
        packed[base + k * NR] = weight[c * in + k];
      }
    }
  }

  /** Lanes of the vectors this machine's Vector API prefers. */
  public static int lanes() {
    return L;
  }

  public int out() {
    return out;
  }

  public int in() {
    return in;
  }

  /**
   * {@code y = x W^T} for x row-major (rows, in); returns y row-major (rows, out). Large products
   * split the output's panels between {@code parallel}'s threads.
   */
  public float[] multiply(float[] x, int rows, Parallel parallel) {
    return multiply(new PackedMatrix[] {this}, x, rows, parallel)[0];
  }

  /**
   * {@code x W^T} for each of {@code weights}, all of the same input width, in one pass over the
   * threads: the projections that read one input (q, k and v; gate and up) then wait for the
   * kernel's other threads once instead of once each.
   */
  public static float[][] multiply(PackedMatrix[] weights, float[] x, int rows, Parallel parallel) {
    int in = weights[0].in;
    if ((long) rows * in != x.length) {
      throw new IllegalArgumentException("input has " + x.length + " values, not " + rows
          + " x " + in);
    }
    float[][] y = new float[weights.length][];
    long work = 0;
    int panels = 0;
    for (int i = 0; i < weights.length; i++) {
      if (weights[i].in != in) {
        throw new IllegalArgumentException("weights of input width " + in + " and "
            + weights[i].in + " cannot share an input");
      }
      y[i] = new float[rows * weights[i].out];
      work += (long) rows * in * weights[i].out;
      panels += weights[i].panels;
    }
    if (work < PARALLEL_WORK || parallel.threads() == 1) {
      for (int i = 0; i < weights.length; i++) {
        weights[i].panels(x, rows, y[i], 0, weights[i].panels);
      }
      return y;
    }
    // Several chunks per thread, claimed as threads come free: a helper that wakes late then
    // takes fewer chunks instead of finishing last.
    int chunk = Math.max(1, panels / (parallel.threads() * CHUNKS_PER_THREAD));
    int[] first = new int[weights.length + 1];
    for (int i = 0; i < weights.length; i++) {
      first[i + 1] = first[i] + (weights[i].panels + chunk - 1) / chunk;
    }
    parallel.forEach(first[weights.length], task -> {
      int i = 0;
      while (task >= first[i + 1]) {
        i++;
      }
      PackedMatrix w = weights[i];
      int from = (task - first[i]) * chunk;
      w.panels(x, rows, y[i], from, Math.min(w.panels, from + chunk));
    });
    return y;
  }

  /**
   * Panels [from, to) for all rows, a slab of rows at a time so it stays in cache with a panel.
   * The last rows, if fewer than a kernel's, run as a zero-padded block: rows are independent,
   * and one block reads the panel once where a row at a time would read it once per row.
   */
  private void panels(float[] x, int rows, float[] y, int from, int to) {
    int slab = Math.max(MR, Math.min(256, (1 << 16) / in / MR * MR));
    int full = rows / MR * MR;
    float[] tail = full == rows ? null : Arrays.copyOfRange(x, full * in, (full + MR) * in);
    float[] edge = new float[MR * NR];
    for (int r0 = 0; r0 < rows; r0 += slab) {
      int r1 = Math.min(rows, r0 + slab);
      for (int p = from; p < to; p++) {
        int col = p * NR;
        int width = Math.min(NR, out - col);
        int w = p * in * NR;
        for (int r = r0; r < r1; r += MR) {
          boolean padded = r == full;
          if (!padded && width == NR) {
            block(x, r, w, y, r * out + col, out);
          } else {
            block(padded ? tail : x, padded ? 0 : r, w, edge, 0, NR);
            copyEdge(edge, Math.min(MR, rows - r), y, r, col, width);
          }
        }
      }
    }
  }

  private void copyEdge(float[] edge, int count, float[] y, int r, int col, int width) {
    for (int i = 0; i < count; i++) {
      System.arraycopy(edge, i * NR, y, (r + i) * out + col, width);
    }
  }

  private void block(float[] x, int r, int w, float[] y, int at, int stride) {
    if (MR == 8) {
      block8(x, r, w, y, at, stride);
    } else {
      block4(x, r, w, y, at, stride);
    }
  }

  private void block8(float[] x, int r, int w, float[] y, int at, int stride) {
    FloatVector c00 = FloatVector.zero(S), c01 = c00, c02 = c00;
    FloatVector c10 = c00, c11 = c00, c12 = c00;
    FloatVector c20 = c00, c21 = c00, c22 = c00;
    FloatVector c30 = c00, c31 = c00, c32 = c00;
    FloatVector c40 = c00, c41 = c00, c42 = c00;
    FloatVector c50 = c00, c51 = c00, c52 = c00;
    FloatVector c60 = c00, c61 = c00, c62 = c00;
    FloatVector c70 = c00, c71 = c00, c72 = c00;
    int a0 = r * in;
    int a1 = a0 + in;
    int a2 = a1 + in;
    int a3 = a2 + in;
    int a4 = a3 + in;
    int a5 = a4 + in;
    int a6 = a5 + in;
    int a7 = a6 + in;
    float[] p = packed;
    for (int k = 0; k < in; k++) {
      int o = w + k * NR;
      FloatVector b0 = FloatVector.fromArray(S, p, o);
      FloatVector b1 = FloatVector.fromArray(S, p, o + L);
      FloatVector b2 = FloatVector.fromArray(S, p, o + 2 * L);
      FloatVector a = FloatVector.broadcast(S, x[a0 + k]);
      c00 = a.fma(b0, c00);
      c01 = a.fma(b1, c01);
      c02 = a.fma(b2, c02);
      a = FloatVector.broadcast(S, x[a1 + k]);
      c10 = a.fma(b0, c10);
      c11 = a.fma(b1, c11);
      c12 = a.fma(b2, c12);
      a = FloatVector.broadcast(S, x[a2 + k]);
      c20 = a.fma(b0, c20);
      c21 = a.fma(b1, c21);
      c22 = a.fma(b2, c22);
      a = FloatVector.broadcast(S, x[a3 + k]);
      c30 = a.fma(b0, c30);
      c31 = a.fma(b1, c31);
      c32 = a.fma(b2, c32);
      a = FloatVector.broadcast(S, x[a4 + k]);
      c40 = a.fma(b0, c40);
      c41 = a.fma(b1, c41);
      c42 = a.fma(b2, c42);
      a = FloatVector.broadcast(S, x[a5 + k]);
      c50 = a.fma(b0, c50);
      c51 = a.fma(b1, c51);
      c52 = a.fma(b2, c52);
      a = FloatVector.broadcast(S, x[a6 + k]);
      c60 = a.fma(b0, c60);
      c61 = a.fma(b1, c61);
      c62 = a.fma(b2, c62);
      a = FloatVector.broadcast(S, x[a7 + k]);
      c70 = a.fma(b0, c70);
      c71 = a.fma(b1, c71);
      c72 = a.fma(b2, c72);
    }
    // Stores spelled out: passing vectors to a helper that C2 leaves out of line makes them
    // escape, and boxing the accumulators made this kernel 5x slower (measured).
    c00.intoArray(y, at);
    c01.intoArray(y, at + L);
    c02.intoArray(y, at + 2 * L);
    c10.intoArray(y, at + stride);
    c11.intoArray(y, at + stride + L);
    c12.intoArray(y, at + stride + 2 * L);
    c20.intoArray(y, at + 2 * stride);
    c21.intoArray(y, at + 2 * stride + L);
    c22.intoArray(y, at + 2 * stride + 2 * L);
    c30.intoArray(y, at + 3 * stride);
    c31.intoArray(y, at + 3 * stride + L);
    c32.intoArray(y, at + 3 * stride + 2 * L);
    c40.intoArray(y, at + 4 * stride);
    c41.intoArray(y, at + 4 * stride + L);
    c42.intoArray(y, at + 4 * stride + 2 * L);
    c50.intoArray(y, at + 5 * stride);
    c51.intoArray(y, at + 5 * stride + L);
    c52.intoArray(y, at + 5 * stride + 2 * L);
    c60.intoArray(y, at + 6 * stride);
    c61.intoArray(y, at + 6 * stride + L);
    c62.intoArray(y, at + 6 * stride + 2 * L);
    c70.intoArray(y, at + 7 * stride);
    c71.intoArray(y, at + 7 * stride + L);
    c72.intoArray(y, at + 7 * stride + 2 * L);
  }

  /** {@link #block8} at half height, for CPUs with 16 vector registers. */
  private void block4(float[] x, int r, int w, float[] y, int at, int stride) {
    FloatVector c00 = FloatVector.zero(S), c01 = c00, c02 = c00;
    FloatVector c10 = c00, c11 = c00, c12 = c00;
    FloatVector c20 = c00, c21 = c00, c22 = c00;
    FloatVector c30 = c00, c31 = c00, c32 = c00;
    int a0 = r * in;
    int a1 = a0 + in;
    int a2 = a1 + in;
    int a3 = a2 + in;
    float[] p = packed;
    for (int k = 0; k < in; k++) {
      int o = w + k * NR;
      FloatVector b0 = FloatVector.fromArray(S, p, o);
      FloatVector b1 = FloatVector.fromArray(S, p, o + L);
      FloatVector b2 = FloatVector.fromArray(S, p, o + 2 * L);
      FloatVector a = FloatVector.broadcast(S, x[a0 + k]);
      c00 = a.fma(b0, c00);
      c01 = a.fma(b1, c01);
      c02 = a.fma(b2, c02);
      a = FloatVector.broadcast(S, x[a1 + k]);
      c10 = a.fma(b0, c10);
      c11 = a.fma(b1, c11);
      c12 = a.fma(b2, c12);
      a = FloatVector.broadcast(S, x[a2 + k]);
      c20 = a.fma(b0, c20);
      c21 = a.fma(b1, c21);
      c22 = a.fma(b2, c22);
      a = FloatVector.broadcast(S, x[a3 + k]);
      c30 = a.fma(b0, c30);
      c31 = a.fma(b1, c31);
      c32 = a.fma(b2, c32);
    }
    c00.intoArray(y, at);
    c01.intoArray(y, at + L);
    c02.intoArray(y, at + 2 * L);
    c10.intoArray(y, at + stride);
    c11.intoArray(y, at + stride + L);
    c12.intoArray(y, at + stride + 2 * L);
    c20.intoArray(y, at + 2 * stride);
    c21.intoArray(y, at + 2 * stride + L);
    c22.intoArray(y, at + 2 * stride + 2 * L);
    c30.intoArray(y, at + 3 * stride);
    c31.intoArray(y, at + 3 * stride + L);
    c32.intoArray(y, at + 3 * stride + 2 * L);
  }
}
