package arbor.policy.train;

import java.util.Locale;

/**
 * How per-token surrogate terms are summed into the batch loss. Both give every token of a
 * sample the same two coefficients: {@code policy} for the clipped surrogate and {@code kl} for
 * the k3 estimate, so a micro-batch's loss is a plain weighted sum and micro-batch losses add
 * up to the batch loss (gradient accumulation needs no rescaling).
 */
public enum Reduction {

  /**
   * The published tree objective: {@code J = (1/Q) sum_q (1/G_q) sum_g L_subtree(g)} with
   * {@code L_subtree} expanded to {@code sum over nodes n of w_n * (1/|y_n|) sum_t l_t}. A token
   * of node n of query q thus weighs {@code w_n / (|y_n| * Q * G_q)}, with |y_n| the node's
   * generated tokens over all its turns and G_q the roots of q present in the batch. The KL is
   * the mean of k3 under the same token weights (normalised by their total).
   */
  TREE,

  /**
   * Every response token of the batch alike: {@code sum_t w_t * l_t / N} over the N tokens, KL
   * the plain token mean. With all weights 1 (the unnormalised tree option upstream) it is the
   * reference trainer's loss.
   */
  TOKEN_MEAN;

  /** The per-token coefficients of one sample (the same for each of its tokens). */
  public record Coefficients(double policy, double kl) {}

  /** {@code tree} or {@code token_mean}, as in the configuration. */
  public static Reduction parse(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "tree" -> TREE;
      case "token_mean" -> TOKEN_MEAN;
      default -> throw new IllegalArgumentException("learner.reduction must be 'tree' or"
          + " 'token_mean', got '" + name + "'");
    };
  }

  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The coefficients of a sample of {@code query} whose node has weight {@code weight} and
   * {@code nodeGenTokens} generated tokens.
   */
  public Coefficients coefficients(BatchShape batch, String query, double weight,
      long nodeGenTokens) {
    return switch (this) {
      case TREE -> {
        double c = weight / ((double) nodeGenTokens * batch.queries() * batch.roots(query));
        yield new Coefficients(c, c / batch.treeMass());
      }
      case TOKEN_MEAN -> new Coefficients(weight / batch.tokens(), 1.0 / batch.tokens());
    };
  }
}
