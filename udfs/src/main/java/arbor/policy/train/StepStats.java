package arbor.policy.train;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one learner step did, as logged to {@code metrics}.
 *
 * @param loss the minimised objective: policyLoss + beta * kl
 * @param policyLoss minus the reduced clipped surrogate (minus J without the KL)
 * @param kl the reduction-weighted mean of the k3 estimate
 * @param clipFraction share of response tokens whose clipped branch was binding (no gradient)
 * @param meanRatio token mean of exp(logp_new - logp_old)
 * @param entropy token mean of the policy's entropy at each response position
 * @param gradNorm global gradient norm before clipping
 * @param tokens response tokens trained on
 * @param samples samples (turns) trained on
 * @param microBatches forward/backward passes the batch took
 * @param seconds wall time of the step
 */
public record StepStats(double loss, double policyLoss, double kl, double clipFraction,
    double meanRatio, double entropy, double gradNorm, long tokens, long samples,
    int microBatches, double seconds) {

  /** The metric names in the {@code metrics} table, in the order they are written. */
  public Map<String, Double> metrics() {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("learner.loss", loss);
    m.put("learner.policy_loss", policyLoss);
    m.put("learner.kl", kl);
    m.put("learner.clip_fraction", clipFraction);
    m.put("learner.mean_ratio", meanRatio);
    m.put("learner.entropy", entropy);
    m.put("learner.grad_norm", gradNorm);
    m.put("learner.tokens", (double) tokens);
    m.put("learner.samples", (double) samples);
    m.put("learner.micro_batches", (double) microBatches);
    m.put("learner.seconds", seconds);
    return m;
  }
}
