package arbor.policy.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.advantages.GroupAdvantages;
import arbor.conf.LearnerSettings;
import arbor.policy.model.Qwen3Model;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One GRPO step moves the policy the right way: in a group of one query whose two answers
 * were rewarded 1 and 0, the better answer becomes more likely and the worse one less likely,
 * under either loss reduction; a group whose rewards are all equal teaches nothing, so the
 * step leaves the policy as it was. Behaviour log-probs are the policy's own (ratio 1), there
 * is no reference model (beta_kl 0) and no weight decay, so only the advantages move weights.
 */
class GrpoDirectionTest {

  private static final double TEMPERATURE = 1.0;
  private static final double LR = 1e-3;
  private static final int[] PROMPT = {1, 2, 3, 4, 5};
  private static final int[][] RESPONSES = {{10, 11, 12, 13, 14}, {40, 41, 42, 43}};

  /**
   * Calibrated: one step at lr 1e-3 moves the summed log-probs by +0.72 / -0.58 (tree) and
   * +0.77 / -0.54 (token_mean), over ten times this; lr 0 moves them by 0.
   */
  private static final double MIN_MOVE = 0.05;

  private static LearnerSettings settings(String reduction) {
    return new LearnerSettings(LR, 0.0, 0.9, 0.999, 1e-8, 1.0, 0.2, 0.0, reduction, 100_000, 4);
  }

  private static double sumLogProb(Qwen3Model model, int[] response) {
    double s = 0;
    for (float lp : PolicyUpdateTest.logProbs(new PolicyForward(model, TEMPERATURE), PROMPT,
        response)) {
      s += lp;
    }
    return s;
  }

  /** One root per response of the same query, advantages normalised over the group. */
  private static List<TrainSample> group(Qwen3Model model, double[] rewards) {
    double[] advantages = GroupAdvantages.of(rewards);
    PolicyForward f = new PolicyForward(model, TEMPERATURE);
    List<TrainSample> out = new ArrayList<>();
    for (int i = 0; i < RESPONSES.length; i++) {
      int[] r = RESPONSES[i];
      out.add(new TrainSample("q", "r" + i, 0, advantages[i], 1.0, r.length, PROMPT, r,
          PolicyUpdateTest.logProbs(f, PROMPT, r)));
    }
    return out;
  }

  private static BatchShape shape(List<TrainSample> samples) {
    long tokens = samples.stream().mapToLong(s -> s.responseIds().length).sum();
    double nodeWeight = samples.stream()
        .mapToDouble(s -> s.weight() * s.responseIds().length / s.nodeGenTokens()).sum();
    return BatchShape.of(List.of(
        new BatchShape.QueryTotals("q", samples.size(), tokens, nodeWeight)));
  }

  /** Summed log-probs of each response after one step on a group with these rewards. */
  private static double[][] beforeAndAfterOneStep(String reduction, double[] rewards) {
    try (Qwen3Model policy = PolicyUpdateTest.model();
        PolicyUpdate update = new PolicyUpdate(policy, null, settings(reduction), TEMPERATURE)) {
      double[] before = new double[RESPONSES.length];
      for (int i = 0; i < RESPONSES.length; i++) {
        before[i] = sumLogProb(policy, RESPONSES[i]);
      }
      List<TrainSample> samples = group(policy, rewards);
      StepStats stats = update.step(shape(samples), samples.iterator());
      assertEquals(1.0, stats.meanRatio(), 1e-5, "behaviour log-probs are the policy's own");
      double[] after = new double[RESPONSES.length];
      for (int i = 0; i < RESPONSES.length; i++) {
        after[i] = sumLogProb(policy, RESPONSES[i]);
      }
      return new double[][] {before, after};
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"tree", "token_mean"})
  void oneStepRaisesTheBetterAnswerAndLowersTheWorse(String reduction) {
    double[] rewards = {1.0, 0.0};
    double[] advantages = GroupAdvantages.of(rewards);
    assertTrue(advantages[0] > 0 && advantages[1] < 0, java.util.Arrays.toString(advantages));
    double[][] lp = beforeAndAfterOneStep(reduction, rewards);
    double better = lp[1][0] - lp[0][0];
    double worse = lp[1][1] - lp[0][1];
    System.out.printf("GrpoDirectionTest %s: better %.4f -> %.4f (%+.4f), worse %.4f -> %.4f"
        + " (%+.4f)%n", reduction, lp[0][0], lp[1][0], better, lp[0][1], lp[1][1], worse);
    assertTrue(better > MIN_MOVE, reduction + ": the rewarded answer's log-prob moved by "
        + better);
    assertTrue(worse < -MIN_MOVE, reduction + ": the unrewarded answer's log-prob moved by "
        + worse);
  }

  @ParameterizedTest
  @ValueSource(strings = {"tree", "token_mean"})
  void aGroupWithEqualRewardsLeavesThePolicyUnchanged(String reduction) {
    double[] rewards = {1.0, 1.0};
    assertArrayEquals(new double[] {0, 0}, GroupAdvantages.of(rewards));
    double[][] lp = beforeAndAfterOneStep(reduction, rewards);
    for (int i = 0; i < RESPONSES.length; i++) {
      assertEquals(lp[0][i], lp[1][i], 1e-6, reduction + ": response " + i);
    }
  }
}
