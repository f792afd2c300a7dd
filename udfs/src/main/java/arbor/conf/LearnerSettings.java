package arbor.conf;

import java.io.Serializable;
import java.util.Locale;
import java.util.Set;

/**
 * The driver-side learner: objective, optimizer and micro-batching (docs/training.md).
 *
 * @param lr AdamW learning rate (constant schedule)
 * @param weightDecay decoupled weight decay, on matrices only
 * @param beta1 AdamW first-moment decay
 * @param beta2 AdamW second-moment decay
 * @param eps AdamW epsilon
 * @param maxGradNorm global gradient L2 norm clip; 0 turns clipping off
 * @param epsClip PPO ratio clip: rho is clipped to [1 - eps_clip, 1 + eps_clip]
 * @param betaKl weight of the k3 KL to the reference policy; 0 skips the reference model
 * @param reduction {@code tree} (the published objective) or {@code token_mean}
 * @param microBatchTokens cost budget of one micro-batch in token-equivalents: rows x
 *     (longest + attention's extra cost at that length), see {@code MicroBatches}
 * @param attentionChunk query rows per attention block in the training forward
 */
public record LearnerSettings(double lr, double weightDecay, double beta1, double beta2,
    double eps, double maxGradNorm, double epsClip, double betaKl, String reduction,
    int microBatchTokens, int attentionChunk) implements Serializable {

  public LearnerSettings {
    if (microBatchTokens < 1 || attentionChunk < 1) {
      throw new IllegalArgumentException("learner.micro_batch_tokens and"
          + " learner.attention_chunk must be >= 1, got " + microBatchTokens + " and "
          + attentionChunk);
    }
    if (!REDUCTIONS.contains(reduction.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException("learner.reduction must be 'tree' or 'token_mean', got '" + reduction + "'");
    }
    if (!(lr >= 0) || !(weightDecay >= 0) || !(eps > 0) || !(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1)) {
      throw new IllegalArgumentException("learner: AdamW needs lr >= 0, weight_decay >= 0, eps > 0 and betas in [0, 1);"
          + " got lr=" + lr + " weight_decay=" + weightDecay + " eps=" + eps + " betas " + beta1 + ", " + beta2);
    }
    if (!(epsClip > 0 && epsClip < 1) || !(betaKl >= 0)) {
      throw new IllegalArgumentException("learner: need 0 < eps_clip < 1 and beta_kl >= 0, got " + epsClip + ", " + betaKl);
    }
  }

  private static final Set<String> REDUCTIONS = Set.of("tree", "token_mean");

  /** The method's defaults (section 8), with the embedded micro-batch budget. */
  public static LearnerSettings defaults() {
    return new LearnerSettings(1e-6, 0.01, 0.9, 0.999, 1e-8, 1.0, 0.2, 0.01, "tree", 16_384,
        256);
  }

}
