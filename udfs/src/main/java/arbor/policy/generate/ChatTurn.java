package arbor.policy.generate;

/**
 * One generated assistant turn as the RLM runtime records it: exactly the tokens the policy saw
 * and produced, with their log-probabilities, so the learner can score the same tokens.
 *
 * @param text the response decoded without its final stop token
 */
public record ChatTurn(int[] promptIds, int[] responseIds, float[] logProbs, String text,
    Generation.FinishReason finishReason) {}
