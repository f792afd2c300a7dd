package arbor.rlm.policy;

/**
 * What a policy generated for one turn: the text, and - when the policy has them - the exact
 * prompt token ids it was conditioned on, the generated token ids, and their behaviour
 * log-probabilities (the training sample of that turn).
 */
public record Generation(String text, int[] promptTokenIds, int[] tokenIds, float[] logprobs) {
  public static Generation ofText(String text) {
    return new Generation(text, null, null, null);
  }

  /** Generated tokens: exact when the policy gave ids, otherwise about four characters each. */
  public int tokenCount() {
    return tokenIds != null ? tokenIds.length : (text.length() + 3) / 4;
  }
}
