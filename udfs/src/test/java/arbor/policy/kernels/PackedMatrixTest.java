package arbor.policy.kernels;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PackedMatrixTest {

  private static final Parallel ONE = new Parallel(1, "unused");

  @ParameterizedTest(name = "{0} rows, {1} in, {2} out")
  @CsvSource({"1, 8, 5", "7, 37, 50", "19, 64, 131", "33, 130, 96"})
  void multipliesLikeADoublePrecisionReference(int rows, int in, int out) {
    float[] w = random(out * in, 1);
    float[] x = random(rows * in, 2);
    float[] y = new PackedMatrix(w, out, in).multiply(x, rows, ONE);
    assertEquals(rows * out, y.length);
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < out; c++) {
        double sum = 0;
        double scale = 0;
        for (int k = 0; k < in; k++) {
          sum += (double) x[r * in + k] * w[c * in + k];
          scale += Math.abs((double) x[r * in + k] * w[c * in + k]);
        }
        assertEquals(sum, y[r * out + c], 1e-6 * scale + 1e-7, "row " + r + ", column " + c);
      }
    }
  }

  /**
   * The engine's batch invariance rests on this: a row's outputs are the same bits alone, in
   * batches of any size (in a full block of rows, or in the zero-padded block of the last ones),
   * and with the columns split between threads.
   */
  @Test
  void aRowGetsTheSameBitsInAnyBatchAndOnAnyThreads() {
    int in = 96;
    int out = 300;  // six full panels and a partial one with 512-bit vectors
    PackedMatrix m = new PackedMatrix(random(out * in, 3), out, in);
    float[] row = random(in, 4);
    float[] alone = m.multiply(row, 1, ONE);
    try (Parallel three = new Parallel(3, "test-matmul")) {
      for (int rows : new int[] {2, 5, 8, 9, 17, 40}) {
        for (int at : new int[] {0, rows / 2, rows - 1}) {
          float[] x = random(rows * in, 100 + rows);
          System.arraycopy(row, 0, x, at * in, in);
          for (int threads : new int[] {1, 3}) {
            // 40 x 96 x 300 multiply-adds exceed the parallel limit: that product is split.
            float[] y = m.multiply(x, rows, threads == 1 ? ONE : three);
            assertArrayEquals(alone, Arrays.copyOfRange(y, at * out, (at + 1) * out),
                rows + " rows, row " + at + ", " + threads + " threads");
          }
        }
      }
    }
  }

  /** q, k and v (or gate and up) multiplied in one pass: each as if multiplied alone. */
  @Test
  void weightsSharingAnInputGetTheBitsOfTheirProductsAlone() {
    int in = 200;
    int rows = 33;
    PackedMatrix[] weights = {new PackedMatrix(random(300 * in, 5), 300, in),
        new PackedMatrix(random(7 * in, 6), 7, in), new PackedMatrix(random(100 * in, 7), 100, in)};
    float[] x = random(rows * in, 8);
    try (Parallel three = new Parallel(3, "test-matmul")) {
      float[][] together = PackedMatrix.multiply(weights, x, rows, three);
      for (int i = 0; i < weights.length; i++) {
        assertArrayEquals(weights[i].multiply(x, rows, ONE), together[i], "weight " + i);
      }
    }
  }

  @Test
  void shapesThatDoNotMatchAreRejectedWithTheShapes() {
    var e = assertThrows(IllegalArgumentException.class, () -> new PackedMatrix(new float[10], 3, 4));
    assertTrue(e.getMessage().contains("3 x 4"), e.getMessage());
    PackedMatrix m = new PackedMatrix(new float[12], 3, 4);
    e = assertThrows(IllegalArgumentException.class, () -> m.multiply(new float[9], 2, ONE));
    assertTrue(e.getMessage().contains("2 x 4"), e.getMessage());
    PackedMatrix[] mixed = {m, new PackedMatrix(new float[10], 2, 5)};
    e = assertThrows(IllegalArgumentException.class,
        () -> PackedMatrix.multiply(mixed, new float[8], 2, ONE));
    assertTrue(e.getMessage().contains("4 and 5"), e.getMessage());
  }

  private static float[] random(int n, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) (rnd.nextDouble() * 2 - 1);
    }
    return a;
  }
}
