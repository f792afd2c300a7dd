package arbor.policy.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.Collections;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SamplerTest {

  private static NDManager manager;

  @BeforeAll
  static void open() {
    manager = NDManager.newBaseManager();
  }

  @AfterAll
  static void close() {
    manager.close();
  }

  // softmax([ln 4, ln 3, ln 2, ln 1]) = [0.4, 0.3, 0.2, 0.1]
  private static final float[] LOGITS = {
      (float) Math.log(4), (float) Math.log(3), (float) Math.log(2), 0f};

  private static SamplingParams params(double temperature, double topP, int topK) {
    return new SamplingParams(temperature, topP, topK, 10, 0, Set.of());
  }

  @Test
  void greedyPicksTheArgmaxWithItsLogProb() {
    Sampler.Draw d = Sampler.sample(logits(1), params(0, 1, 0), new SplittableRandom(1));
    assertEquals(0, d.token());
    assertEquals(Math.log(0.4), d.logProb(), 1e-6);
  }

  @Test
  void plainSamplingFollowsTheSoftmax() {
    double[] freq = frequencies(params(1, 1, 0), 40_000);
    double[] expected = {0.4, 0.3, 0.2, 0.1};
    for (int i = 0; i < 4; i++) {
      assertEquals(expected[i], freq[i], 0.01, "token " + i);
    }
  }

  @Test
  void topPKeepsTheSmallestPrefixReachingP() {
    // 0.4 + 0.3 = 0.7 >= 0.65: tokens 0 and 1 renormalised to 4/7 and 3/7.
    double[] freq = frequencies(params(1, 0.65, 0), 40_000);
    assertEquals(4.0 / 7, freq[0], 0.01);
    assertEquals(3.0 / 7, freq[1], 0.01);
    assertEquals(0, freq[2] + freq[3]);
  }

  @Test
  void topKKeepsTheKMostLikely() {
    // k = 3: 0.4, 0.3, 0.2 renormalised by 0.9.
    double[] freq = frequencies(params(1, 1, 3), 40_000);
    assertEquals(0.4 / 0.9, freq[0], 0.01);
    assertEquals(0.2 / 0.9, freq[2], 0.01);
    assertEquals(0, freq[3]);
  }

  @Test
  void theLogProbIsUnderTheTemperatureScaledSoftmax() {
    // Temperature 0.5 squares the odds: [16, 9, 4, 1] / 30.
    Sampler.Draw d = Sampler.sample(logits(1), params(0.5, 1, 0), new SplittableRandom(3));
    double[] p = {16 / 30.0, 9 / 30.0, 4 / 30.0, 1 / 30.0};
    assertEquals(Math.log(p[d.token()]), d.logProb(), 1e-6);
  }

  @Test
  void eachRowUsesItsOwnGeneratorWhateverElseIsInTheBatch() {
    SamplingParams p = params(1, 0.9, 3);
    Sampler.Draw alone = Sampler.sample(logits(1), p, new SplittableRandom(11));
    NDArray batch = manager.create(LOGITS, new Shape(1, 4)).repeat(0, 3);
    Sampler.Draw[] together = Sampler.sample(batch,
        java.util.List.of(params(0, 1, 0), p, params(1, 1, 0)),
        java.util.List.of(new SplittableRandom(5), new SplittableRandom(11),
            new SplittableRandom(6)));
    assertEquals(alone, together[1]);
    assertEquals(0, together[0].token());
  }

  /** Draws {@code n} tokens from one generator, as n steps of one sequence would. */
  private static double[] frequencies(SamplingParams p, int n) {
    SplittableRandom rng = new SplittableRandom(7);
    NDArray rows = manager.create(LOGITS, new Shape(1, 4)).repeat(0, n);
    double[] f = new double[4];
    for (Sampler.Draw d : Sampler.sample(rows, Collections.nCopies(n, p),
        Collections.nCopies(n, rng))) {
      f[d.token()] += 1.0 / n;
    }
    return f;
  }

  /** The logits as the engine hands them over: (1, vocab), temperature not yet applied. */
  private static NDArray logits(int rows) {
    return manager.create(LOGITS, new Shape(rows, 4));
  }
}
