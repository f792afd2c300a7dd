package arbor.policy.generate;

import java.util.Set;

/**
 * How one sequence is sampled.
 *
 * @param temperature 0 means greedy; otherwise logits are divided by it
 * @param topP nucleus mass in (0, 1]; 1 keeps every token
 * @param topK keep only the k most likely tokens; 0 keeps every token
 * @param maxNewTokens generation stops after this many tokens
 * @param seed seeds this sequence's own generator: the same seed gives the same tokens whatever
 *     else the engine is running
 * @param stopTokenIds generation stops after emitting any of these (the stop token is returned)
 */
public record SamplingParams(double temperature, double topP, int topK, int maxNewTokens,
    long seed, Set<Integer> stopTokenIds) {

  public SamplingParams {
    if (temperature < 0 || Double.isNaN(temperature)) {
      throw new IllegalArgumentException("temperature must be >= 0, got " + temperature);
    }
    if (!(topP > 0 && topP <= 1)) {
      throw new IllegalArgumentException("top_p must be in (0, 1], got " + topP);
    }
    if (topK < 0) {
      throw new IllegalArgumentException("top_k must be >= 0 (0 = off), got " + topK);
    }
    if (maxNewTokens < 1) {
      throw new IllegalArgumentException("max_new_tokens must be >= 1, got " + maxNewTokens);
    }
    stopTokenIds = Set.copyOf(stopTokenIds);
  }

  /** Whether draws are limited by top-k or top-p (greedy ones never are). */
  public boolean truncates() {
    return temperature > 0 && (topK != 0 || topP < 1.0);
  }

  public static SamplingParams greedy(int maxNewTokens, Set<Integer> stops) {
    return new SamplingParams(0, 1, 0, maxNewTokens, 0, stops);
  }
}
