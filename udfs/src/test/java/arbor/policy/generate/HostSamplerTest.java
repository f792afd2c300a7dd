package arbor.policy.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import arbor.policy.kernels.Parallel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class HostSamplerTest {

  /** Not a multiple of any vector length: the scalar tail runs too. */
  private static final int VOCAB = 1003;

  private static NDManager manager;
  private static Parallel one;
  private static Parallel three;

  @BeforeAll
  static void open() {
    manager = NDManager.newBaseManager();
    one = new Parallel(1, "test-one");
    three = new Parallel(3, "test-three");
  }

  @AfterAll
  static void close() {
    manager.close();
    one.close();
    three.close();
  }

  private static float[] randomLogits(int rows, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[rows * VOCAB];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) (r.nextGaussian() * 3);
    }
    return x;
  }

  /** Greedy, plain at three temperatures, top-k and top-p rows, repeated. */
  private static List<SamplingParams> mixed(int rows) {
    SamplingParams[] kinds = {
        new SamplingParams(0, 1, 0, 10, 0, Set.of()),
        new SamplingParams(1, 1, 0, 10, 0, Set.of()),
        new SamplingParams(0.7, 1, 0, 10, 0, Set.of()),
        new SamplingParams(1.6, 1, 0, 10, 0, Set.of()),
        new SamplingParams(1, 1, 20, 10, 0, Set.of()),
        new SamplingParams(1, 0.8, 0, 10, 0, Set.of())};
    List<SamplingParams> p = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      p.add(kinds[i % kinds.length]);
    }
    return p;
  }

  private static List<SplittableRandom> generators(int rows, long seed) {
    List<SplittableRandom> g = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      g.add(new SplittableRandom(seed + i));
    }
    return g;
  }

  @Test
  void drawsWhatTheLibtorchSamplerDrawsWithTheSameLogProbs() {
    int rows = 60;
    NDArray logits = manager.create(randomLogits(rows, 1), new Shape(rows, VOCAB));
    for (int step = 0; step < 5; step++) {
      List<SplittableRandom> a = generators(rows, 100L * step);
      List<SplittableRandom> b = generators(rows, 100L * step);
      Sampler.Draw[] torch = Sampler.sample(logits, mixed(rows), a);
      Sampler.Draw[] host = HostSampler.sample(logits.toFloatArray(), VOCAB, mixed(rows), b, three,
          manager);
      for (int i = 0; i < rows; i++) {
        assertEquals(torch[i].token(), host[i].token(), "row " + i + ", step " + step);
        assertEquals(torch[i].logProb(), host[i].logProb(), 2e-5, "row " + i + ", step " + step);
      }
    }
  }

  @Test
  void plainDrawsFollowTheSoftmaxOfTheTemperatureScaledLogits() {
    // softmax([ln 4, ln 3, ln 2, 0] / 0.5) = [16, 9, 4, 1] / 30
    float[] row = {(float) Math.log(4), (float) Math.log(3), (float) Math.log(2), 0f};
    int n = 30_000;
    float[] all = new float[n * 4];
    for (int i = 0; i < n; i++) {
      System.arraycopy(row, 0, all, i * 4, 4);
    }
    SplittableRandom rng = new SplittableRandom(9);
    SamplingParams p = new SamplingParams(0.5, 1, 0, 10, 0, Set.of());
    double[] freq = new double[4];
    double[] expected = {16 / 30.0, 9 / 30.0, 4 / 30.0, 1 / 30.0};
    Sampler.Draw[] draws = HostSampler.sample(all, 4, java.util.Collections.nCopies(n, p),
        java.util.Collections.nCopies(n, rng), one, manager);
    for (Sampler.Draw d : draws) {
      freq[d.token()] += 1.0 / n;
      assertEquals(Math.log(expected[d.token()]), d.logProb(), 1e-6);
    }
    for (int t = 0; t < 4; t++) {
      assertEquals(expected[t], freq[t], 0.01, "token " + t);
    }
  }

  @Test
  void aRowDrawsTheSameBitsAloneOrInABatchOnAnyThreads() {
    int rows = 13;
    float[] all = randomLogits(rows, 2);
    List<SamplingParams> params = mixed(rows);
    Sampler.Draw[] batch = HostSampler.sample(all, VOCAB, params, generators(rows, 50), three,
        manager);
    for (int i = 0; i < rows; i++) {
      float[] row = java.util.Arrays.copyOfRange(all, i * VOCAB, (i + 1) * VOCAB);
      Sampler.Draw alone = HostSampler.sample(row, VOCAB, List.of(params.get(i)),
          List.of(new SplittableRandom(50 + i)), one, manager)[0];
      assertEquals(alone.token(), batch[i].token(), "row " + i);
      assertEquals(Float.floatToIntBits(alone.logProb()),
          Float.floatToIntBits(batch[i].logProb()), "row " + i);
    }
  }

  @Test
  void nonFiniteLogitsAreAnErrorThatNamesTheRow() {
    float[] all = randomLogits(3, 3);
    all[2 * VOCAB + 17] = Float.NaN;
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> HostSampler.sample(all, VOCAB, mixed(3), generators(3, 1), one, manager));
    assertTrue(e.getMessage().contains("row 2 "), e.getMessage());
  }
}
