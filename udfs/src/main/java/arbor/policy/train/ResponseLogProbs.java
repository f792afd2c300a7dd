package arbor.policy.train;

import ai.djl.ndarray.NDArray;

/**
 * Per-token results of a training forward over a padded micro-batch, all (B, L) and aligned:
 * column j of row b is the j-th response token of sample b. Columns past a sample's response
 * are padding, zero in {@code mask}.
 *
 * @param logProbs log-probability of each response token (differentiable)
 * @param entropy entropy of the distribution each response token was drawn from (differentiable)
 * @param mask 1 for a real response token, 0 for padding
 */
public record ResponseLogProbs(NDArray logProbs, NDArray entropy, NDArray mask) {}
