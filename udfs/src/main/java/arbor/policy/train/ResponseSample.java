package arbor.policy.train;

/** One (prompt, response) pair whose response tokens the learner scores. */
public record ResponseSample(int[] promptIds, int[] responseIds) {

  public ResponseSample {
    if (promptIds.length == 0 || responseIds.length == 0) {
      throw new IllegalArgumentException("a sample needs at least one prompt and one response"
          + " token (got " + promptIds.length + " and " + responseIds.length + ")");
    }
  }

  public int length() {
    return promptIds.length + responseIds.length;
  }
}
