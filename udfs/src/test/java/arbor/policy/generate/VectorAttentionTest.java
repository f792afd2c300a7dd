package arbor.policy.generate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.policy.kernels.Exp;
import arbor.policy.kernels.Parallel;
import arbor.policy.model.ModelConfig;
import java.util.Arrays;
import java.util.SplittableRandom;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VectorAttentionTest {

  private static final int HEADS = 4;
  private static final int KV_HEADS = 2;
  private static final Parallel ONE = new Parallel(1, "test-attention");
  private static final Parallel THREE = new Parallel(3, "test-attention");

  @AfterAll
  static void close() {
    THREE.close();
  }

  /** One test sequence: its keys, values and queries for every position, per head. */
  private record Sequence(float[][][] q, float[][][] k, float[][][] v) {
    static Sequence random(int length, int d, long seed) {
      SplittableRandom r = new SplittableRandom(seed);
      return new Sequence(draw(r, HEADS, length, d), draw(r, KV_HEADS, length, d),
          draw(r, KV_HEADS, length, d));
    }

    private static float[][][] draw(SplittableRandom r, int heads, int length, int d) {
      float[][][] a = new float[heads][length][d];
      for (float[][] h : a) {
        for (float[] p : h) {
          for (int e = 0; e < d; e++) {
            p[e] = (float) (r.nextDouble() * 4 - 2);
          }
        }
      }
      return a;
    }
  }

  /**
   * Runs one forward: row i adds positions [starts[i], starts[i] + counts[i]) of seqs[i], whose
   * earlier positions the caller wrote before. Returns the output per row, position and head.
   */
  private static float[][][][] forward(HeapKv kv, int[][] tables, Sequence[] seqs, int[] starts,
      int[] counts, Parallel threads) {
    int n = seqs.length;
    int d = kv.headDim();
    int t = Arrays.stream(counts).max().orElseThrow();
    float[] q = new float[n * t * HEADS * d];
    float[] k = new float[n * t * KV_HEADS * d];
    float[] v = new float[n * t * KV_HEADS * d];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < counts[i]; j++) {
        for (int h = 0; h < HEADS; h++) {
          System.arraycopy(seqs[i].q[h][starts[i] + j], 0, q, ((i * t + j) * HEADS + h) * d, d);
        }
        for (int h = 0; h < KV_HEADS; h++) {
          System.arraycopy(seqs[i].k[h][starts[i] + j], 0, k, ((i * t + j) * KV_HEADS + h) * d, d);
          System.arraycopy(seqs[i].v[h][starts[i] + j], 0, v, ((i * t + j) * KV_HEADS + h) * d, d);
        }
      }
    }
    float[] out = new VectorAttention(kv, tables, starts, counts, threads).attend(0, q, k, v, t);
    float[][][][] byRow = new float[n][t][HEADS][];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < t; j++) {
        for (int h = 0; h < HEADS; h++) {
          int at = ((i * t + j) * HEADS + h) * d;
          byRow[i][j][h] = Arrays.copyOfRange(out, at, at + d);
        }
      }
    }
    return byRow;
  }

  private static HeapKv heap(int d, int blockSize) {
    return new HeapKv(ModelConfig.qwen3(64, HEADS * d, 64, 1, HEADS, KV_HEADS, d, false), 128,
        blockSize);
  }

  /** Distinct blocks for each row, enough for {@code length} positions. */
  private static int[][] tables(int rows, int length, int blockSize, int first) {
    int per = (length + blockSize - 1) / blockSize;
    int[][] t = new int[rows][per];
    for (int i = 0; i < rows; i++) {
      for (int b = 0; b < per; b++) {
        t[i][b] = first + i * per + b;
      }
    }
    return t;
  }

  @ParameterizedTest(name = "head dim {0}, blocks of {1}")
  @CsvSource({"16, 16", "64, 16", "80, 32", "12, 4", "8, 5"})
  void attendsLikeADoublePrecisionSoftmax(int d, int blockSize) {
    int length = 83;  // several groups of four vectors of positions, and a partial block
    Sequence s = Sequence.random(length, d, 7);
    HeapKv kv = heap(d, blockSize);
    float[][][] out = forward(kv, tables(1, length, blockSize, 1), new Sequence[] {s},
        new int[] {0}, new int[] {length}, ONE)[0];
    double scale = 1 / Math.sqrt(d);
    for (int p = 0; p < length; p++) {
      for (int h = 0; h < HEADS; h++) {
        int kh = h / (HEADS / KV_HEADS);
        double[] w = new double[p + 1];
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j <= p; j++) {
          for (int e = 0; e < d; e++) {
            w[j] += (double) s.q[h][p][e] * s.k[kh][j][e] * scale;
          }
          max = Math.max(max, w[j]);
        }
        double sum = 0;
        for (int j = 0; j <= p; j++) {
          w[j] = Math.exp(w[j] - max);
          sum += w[j];
        }
        for (int e = 0; e < d; e++) {
          double expected = 0;
          for (int j = 0; j <= p; j++) {
            expected += w[j] / sum * s.v[kh][j][e];
          }
          assertEquals(expected, out[p][h][e], 2e-5, "position " + p + ", head " + h + ", dim " + e);
        }
      }
    }
  }

  /**
   * What preemption and the prefix cache rest on: a query gets the same bits prefilled in one
   * chunk, decoded one position at a time, next to other sequences of other lengths, and on one
   * or three threads.
   */
  @ParameterizedTest(name = "head dim {0}, blocks of {1}")
  @CsvSource({"64, 16", "16, 16", "12, 4"})
  void aQueryGetsTheSameBitsInPrefillAndDecodeInAnyBatchOnAnyThreads(int d, int blockSize) {
    int length = 75;
    Sequence s = Sequence.random(length, d, 11);
    HeapKv kv = heap(d, blockSize);
    int[][] alone = tables(1, length, blockSize, 1);
    float[][][] prefilled = forward(kv, alone, new Sequence[] {s}, new int[] {0},
        new int[] {length}, ONE)[0];

    // The same sequence decoded token by token (after a 7-token prefill) beside two others.
    Sequence other = Sequence.random(length, d, 12);
    Sequence third = Sequence.random(length, d, 13);
    int[][] batch = tables(3, length, blockSize, 1 + alone[0].length);
    Sequence[] seqs = {other, s, third};
    forward(kv, batch, seqs, new int[] {0, 0, 0}, new int[] {3, 7, 19}, THREE);
    int[] starts = {3, 7, 19};
    for (int p = 7; p < length; p++) {
      int[] ones = {1, 1, 1};
      float[][][][] step = forward(kv, batch, seqs, starts, ones, p % 2 == 0 ? ONE : THREE);
      for (int h = 0; h < HEADS; h++) {
        assertArrayEquals(prefilled[p][h], step[1][0][h], "position " + p + ", head " + h);
      }
      for (int i = 0; i < 3; i++) {
        starts[i] = Math.min(starts[i] + 1, length - 1);
      }
    }
  }

  @Test
  void theVectorAndScalarExponentialsAgreeBitForBitAndWithMathExp() {
    float[] xs = new float[4096];
    SplittableRandom r = new SplittableRandom(3);
    for (int i = 0; i < xs.length; i++) {
      xs[i] = i < 8 ? new float[] {0f, -0f, -1e-30f, -0.5f, -87f, -88f, -200f, -1e30f}[i]
          : (float) (-r.nextDouble() * (i % 2 == 0 ? 90 : 3));
    }
    float[] scores = new float[xs.length];
    VectorSpecies<Float> species = FloatVector.SPECIES_PREFERRED;
    for (int i = 0; i < xs.length; i += species.length()) {
      Exp.of(FloatVector.fromArray(species, xs, i)).intoArray(scores, i);
    }
    for (int i = 0; i < xs.length; i++) {
      float scalar = Exp.of(xs[i]);
      assertEquals(Float.floatToIntBits(scalar), Float.floatToIntBits(scores[i]), "x = " + xs[i]);
      double exact = Math.exp(Math.max(xs[i], -87f));
      assertTrue(Math.abs(scalar - exact) <= 4e-7 * exact, "x = " + xs[i] + ": " + scalar
          + " against " + exact);
    }
  }
}
