package arbor.policy.train;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Everything {@link AdamW} carries from one step to the next, as plain host arrays, so a
 * checkpoint can store it and a resumed run continue with identical updates.
 *
 * <p>Moments are keyed by the parameter's Hugging Face name (the names of
 * {@code Qwen3Model.parameters()}), flattened row-major in the parameter's shape. The learner
 * itself draws no random numbers (micro-batches are formed deterministically from the rows'
 * lengths), so the optimizer state plus the weights is the whole training state.
 *
 * @param step optimizer steps taken so far (the t of the bias corrections); 0 before the first
 * @param firstMoments m per parameter name
 * @param secondMoments v per parameter name
 */
public record AdamWState(long step, Map<String, float[]> firstMoments,
    Map<String, float[]> secondMoments) {

  public AdamWState {
    if (step < 0) {
      throw new IllegalArgumentException("AdamW step count must be >= 0, got " + step);
    }
    if (!firstMoments.keySet().equals(secondMoments.keySet())) {
      throw new IllegalArgumentException("AdamW state names differ between first and second"
          + " moments: " + firstMoments.keySet() + " vs " + secondMoments.keySet());
    }
    firstMoments = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(firstMoments));
    secondMoments = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(secondMoments));
  }
}
