package arbor.policy.train;

import ai.djl.ndarray.NDManager;
import arbor.policy.model.Qwen3Model;
import java.util.List;

/**
 * Supervised fine-tuning on a teacher's turns, Spark-free: cross-entropy on the response tokens
 * only (the prompt is context, never a target), one {@link AdamW} step per micro-batch packed by
 * {@link MicroBatches.TokenCost}, the memory-linear forward of {@link PolicyForward#train}. No
 * reference model: imitation has no KL term.
 *
 * <p>The loss of a micro-batch is the mean negative log-probability of its response tokens, so a
 * long turn weighs by its tokens, as in ordinary language-model training. Owns the optimizer, not
 * the model (which must be trainable).
 */
public final class SftUpdate implements AutoCloseable {

  /** One pass over the samples: token-mean loss, tokens, optimizer steps, seconds. */
  public record Epoch(double loss, long tokens, int steps, double seconds) {}

  private final Qwen3Model policy;
  private final PolicyForward forward;
  private final AdamW optimizer;
  private final double budget;
  private final MicroBatches.TokenCost cost;

  public SftUpdate(Qwen3Model policy, AdamW.Hyper hyper, int microBatchTokens,
      int attentionChunk) {
    this.policy = policy;
    // Temperature 1: the student learns the teacher's text under its own plain distribution.
    this.forward = new PolicyForward(policy, 1.0, attentionChunk);
    this.optimizer = new AdamW(policy.parameters(), hyper);
    this.budget = microBatchTokens;
    this.cost = MicroBatches.TokenCost.of(policy.config());
  }

  public AdamW optimizer() {
    return optimizer;
  }

  /** One epoch: every sample once, longest first, one optimizer step per micro-batch. */
  public Epoch epoch(List<ResponseSample> samples) {
    if (samples.isEmpty()) {
      throw new IllegalArgumentException("SFT needs at least one sample; the teacher kept no turn");
    }
    long start = System.nanoTime();
    double nll = 0;
    long tokens = 0;
    int steps = 0;
    for (List<Integer> micro : MicroBatches.byCost(samples, budget, cost)) {
      List<ResponseSample> rows = micro.stream().map(samples::get).toList();
      long n = rows.stream().mapToLong(s -> s.responseIds().length).sum();
      try (NDManager work = policy.newWorkManager()) {
        PolicyForward.Trained t = forward.train(work, rows,
            (lp, mask) -> lp.mul(mask).sum().neg().div(n));
        nll += t.loss() * n;
      } catch (RuntimeException e) {
        optimizer.zeroGradients();
        throw e;
      }
      optimizer.step();
      policy.weightsChanged();
      tokens += n;
      steps++;
    }
    return new Epoch(nll / tokens, tokens, steps, (System.nanoTime() - start) / 1e9);
  }

  @Override
  public void close() {
    optimizer.close();
  }
}
