package arbor.conf;

import java.io.Serializable;

/**
 * Cold-start SFT (docs/training.md, "Cold-start SFT"): how the teacher's kept turns are learned.
 * AdamW's betas, eps, weight decay and clipping are the learner's; only the rate differs, since
 * imitation takes far larger steps than the RL update.
 *
 * @param lr AdamW learning rate of SFT: the peak of its schedule
 * @param epochs passes over the kept turns
 * @param microBatchTokens cost budget of one micro-batch, as {@code learner.micro_batch_tokens};
 *     each micro-batch is one optimizer step
 * @param samples teacher trees per {@code sft} query
 * @param maxSampleTokens longest turn (prompt + response, student tokens) that is learned; longer
 *     turns are left out and counted, never cut (a cut prompt is not what the student will see)
 * @param warmupSteps optimizer steps of linear warm-up to {@code lr}; a cosine decay follows
 * @param minLrFraction where the decay ends, as a fraction of {@code lr} (1 = constant rate)
 * @param heldOutFraction share of the kept trees (whole trees, by query) whose turns are not
 *     learned but scored after each epoch: the held-out SFT loss
 * @param seed the order of each epoch's micro-batches and the held-out draw
 */
public record SftSettings(double lr, int epochs, int microBatchTokens, int samples, int maxSampleTokens,
    int warmupSteps, double minLrFraction, double heldOutFraction, long seed) implements Serializable {

  public SftSettings {
    if (warmupSteps < 0 || !(minLrFraction >= 0 && minLrFraction <= 1) || !(heldOutFraction >= 0 && heldOutFraction < 1)) {
      throw new IllegalArgumentException("sft.warmup_steps must be >= 0, sft.min_lr_fraction in [0, 1] and"
          + " sft.held_out_fraction in [0, 1), got " + warmupSteps + ", " + minLrFraction + " and " + heldOutFraction);
    }
    if (epochs < 1 || microBatchTokens < 1 || samples < 1 || maxSampleTokens < 2) {
      throw new IllegalArgumentException("sft.epochs, sft.micro_batch_tokens and sft.samples"
          + " must be >= 1 and sft.max_sample_tokens >= 2, got " + epochs + ", " + microBatchTokens
          + ", " + samples + " and " + maxSampleTokens);
    }
    if (!(lr > 0) || Double.isInfinite(lr)) {
      throw new IllegalArgumentException("sft.lr must be a finite number above 0, got " + lr);
    }
  }

  /** The same settings with another batch order and held-out draw. */
  public SftSettings withSeed(long other) {
    return new SftSettings(lr, epochs, microBatchTokens, samples, maxSampleTokens, warmupSteps, minLrFraction,
        heldOutFraction, other);
  }
}
