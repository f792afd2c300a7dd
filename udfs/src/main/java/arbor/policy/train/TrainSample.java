package arbor.policy.train;

/**
 * One row of the {@code samples} table as the learner uses it: a turn's exact prompt and
 * response tokens, the behaviour log-probabilities recorded when it was generated, and the
 * node's advantage, weight and generated-token count.
 */
public record TrainSample(String queryId, String nodeId, int turn, double advantage,
    double weight, long nodeGenTokens, int[] promptIds, int[] responseIds, float[] logProbs) {

  public TrainSample {
    String where = "sample (node " + nodeId + ", turn " + turn + ")";
    if (promptIds.length == 0 || responseIds.length == 0) {
      throw new IllegalArgumentException(where + " needs at least one prompt and one response"
          + " token, got " + promptIds.length + " and " + responseIds.length);
    }
    if (logProbs.length != responseIds.length) {
      throw new IllegalArgumentException(where + " has " + logProbs.length + " logprobs for "
          + responseIds.length + " response tokens");
    }
    if (nodeGenTokens < responseIds.length) {
      throw new IllegalArgumentException(where + " has node_gen_tokens " + nodeGenTokens
          + " but " + responseIds.length + " response tokens in this turn alone");
    }
    if (!Double.isFinite(advantage) || !(weight >= 0) || Double.isInfinite(weight)) {
      throw new IllegalArgumentException(where + " needs a finite advantage and a finite"
          + " weight >= 0, got " + advantage + " and " + weight);
    }
  }

  public int length() {
    return promptIds.length + responseIds.length;
  }

  ResponseSample tokens() {
    return new ResponseSample(promptIds, responseIds);
  }
}
