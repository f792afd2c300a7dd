package arbor.conf;

import java.io.Serializable;

/**
 * How group advantages become per-sample weights (method section 8, docs/training.md).
 *
 * @param reduction {@code tree}: the published objective, node weights 1/k down the tree;
 *     {@code token_mean}: the reference trainer's, every node weight 1 (the learner then averages
 *     over all tokens of the batch)
 * @param oneChild keep one child per node, drawn uniformly with {@code seed}, at the parent's
 *     weight, instead of all k children at 1/k each
 * @param seed the draw of {@code one_child}: the same seed picks the same children
 */
public record AdvantageSettings(Reduction reduction, boolean oneChild, long seed) implements Serializable {
  public enum Reduction { TREE, TOKEN_MEAN }
}
