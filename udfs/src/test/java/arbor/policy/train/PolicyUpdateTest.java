package arbor.policy.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import arbor.conf.LearnerSettings;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import arbor.policy.model.ScratchModel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyUpdateTest {

  private static final ModelConfig CONFIG = ModelConfig.qwen3(64, 32, 64, 2, 4, 2, 8, true);
  private static final double TEMPERATURE = 1.0;

  /** A random tiny trainable policy (vocab 64, seed 4); other tests of this package reuse it. */
  static Qwen3Model model() {
    Qwen3Model model = ScratchModel.model(CONFIG, 4, Device.cpu());
    model.setTrainable(true);
    return model;
  }

  private static LearnerSettings settings(double lr, int budget) {
    return new LearnerSettings(lr, 0.01, 0.9, 0.999, 1e-8, 1.0, 0.2, 0.01, "tree", budget, 3);
  }

  /**
   * One query, two roots: the first (A = +1) answered "10 11 12 13", the second (A = -1)
   * "40 41 42"; a child of the first, with its own tokens, inherits A = +1. Behaviour
   * log-probs are the model's own, so every ratio starts at 1.
   */
  private static List<TrainSample> samples(Qwen3Model model) {
    int[][] prompts = {{1, 2, 3, 4, 5}, {1, 2, 3, 4, 5}, {7, 8, 9}};
    int[][] responses = {{10, 11, 12, 13}, {40, 41, 42}, {20, 21}};
    double[] adv = {1, -1, 1};
    double[] weight = {1, 1, 1};
    String[] node = {"r0", "r1", "r0.c0"};
    List<TrainSample> out = new ArrayList<>();
    PolicyForward f = new PolicyForward(model, TEMPERATURE);
    for (int i = 0; i < prompts.length; i++) {
      float[] lp = logProbs(f, prompts[i], responses[i]);
      out.add(new TrainSample("q", node[i], 0, adv[i], weight[i], responses[i].length,
          prompts[i], responses[i], lp));
    }
    return out;
  }

  private static BatchShape shape(List<TrainSample> samples) {
    long tokens = samples.stream().mapToLong(s -> s.responseIds().length).sum();
    double nodeWeight = samples.stream()
        .mapToDouble(s -> s.weight() * s.responseIds().length / s.nodeGenTokens()).sum();
    return BatchShape.of(List.of(new BatchShape.QueryTotals("q", 2, tokens, nodeWeight)));
  }

  /** The per-token log-probabilities {@code f} gives a response now (no autograd). */
  static float[] logProbs(PolicyForward f, int[] prompt, int[] response) {
    try (NDManager work = NDManager.newBaseManager()) {
      return f.scoreFrozen(work, List.of(new ResponseSample(prompt, response))).logProbs()
          .toFloatArray();
    }
  }

  private static double mean(float[] v) {
    double s = 0;
    for (float x : v) {
      s += x;
    }
    return s / v.length;
  }

  @Test
  void oneUpdateRaisesPositivelyAndLowersNegativelyAdvantagedTokens() {
    try (Qwen3Model policy = model(); Qwen3Model reference = PolicyUpdate.frozenCopy(policy);
        PolicyUpdate update = new PolicyUpdate(policy, reference, settings(1e-3, 20),
            TEMPERATURE)) {
      List<TrainSample> samples = samples(policy);
      StepStats stats = update.step(shape(samples), samples.iterator());
      // The behaviour log-probs are the policy's: ratio 1, nothing clipped, KL 0.
      assertEquals(1.0, stats.meanRatio(), 1e-5);
      assertEquals(0.0, stats.clipFraction());
      assertEquals(0.0, stats.kl(), 1e-7);
      assertEquals(9, stats.tokens());
      assertTrue(stats.microBatches() > 1, "a budget of 20 splits the batch (rows of 9, 8 and 5 tokens)");
      assertTrue(stats.gradNorm() > 0);
      PolicyForward f = new PolicyForward(policy, TEMPERATURE);
      for (TrainSample s : samples) {
        double before = mean(s.logProbs());
        double after = mean(logProbs(f, s.promptIds(), s.responseIds()));
        if (s.advantage() > 0) {
          assertTrue(after > before + 1e-3, s.nodeId() + ": " + before + " -> " + after);
        } else {
          assertTrue(after < before - 1e-3, s.nodeId() + ": " + before + " -> " + after);
        }
      }
      // The reference stays where the run started.
      float[] refNow = logProbs(new PolicyForward(reference, TEMPERATURE),
          samples.get(0).promptIds(), samples.get(0).responseIds());
      assertEquals(mean(samples.get(0).logProbs()), mean(refNow), 1e-6);
    }
  }

  @Test
  void theStepIsTheSameWhateverTheMicroBatching() {
    float[] oneBatch = upProjAfterOneStep(100_000, 1);
    float[] perSample = upProjAfterOneStep(1, 3);
    for (int i = 0; i < oneBatch.length; i++) {
      assertEquals(oneBatch[i], perSample[i], 1e-7, "up_proj[" + i + "]");
    }
  }

  /** One step with a micro-batch budget that should give {@code microBatches} passes. */
  private static float[] upProjAfterOneStep(int budget, int microBatches) {
    try (Qwen3Model policy = model(); Qwen3Model reference = PolicyUpdate.frozenCopy(policy);
        PolicyUpdate update = new PolicyUpdate(policy, reference, settings(1e-3, budget),
            TEMPERATURE)) {
      List<TrainSample> samples = samples(policy);
      assertEquals(microBatches, update.step(shape(samples), samples.iterator()).microBatches());
      return policy.parameters().get("model.layers.0.mlp.up_proj.weight").toFloatArray();
    }
  }
}
