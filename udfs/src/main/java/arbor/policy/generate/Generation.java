package arbor.policy.generate;

/**
 * What the engine generated for one prompt.
 *
 * @param tokenIds the new tokens, the stop token included when generation stopped on one
 * @param logProbs for each token, its log-probability under softmax(logits / temperature) (under
 *     softmax(logits) when greedy), the distribution the learner recomputes; top-k/top-p
 *     truncation is not folded in, since the learner cannot see it
 */
public record Generation(int[] tokenIds, float[] logProbs, FinishReason finishReason) {

  public enum FinishReason {
    /** Emitted a stop token. */
    STOP,
    /** Reached max_new_tokens. */
    LENGTH
  }
}
