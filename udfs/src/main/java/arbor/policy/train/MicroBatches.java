package arbor.policy.train;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Splits samples into micro-batches whose padded size (rows x longest row) stays within a token
 * budget, so activation memory is bounded whatever the mix of lengths. Samples are grouped by
 * length (longest first) to waste little on padding; each micro-batch lists the indices of its
 * samples in the caller's list. A sample longer than the budget gets a micro-batch of its own.
 */
public final class MicroBatches {

  private MicroBatches() {}

  public static List<List<Integer>> byTokenBudget(List<ResponseSample> samples, int tokenBudget) {
    if (tokenBudget < 1) {
      throw new IllegalArgumentException("token budget must be positive, got " + tokenBudget);
    }
    List<Integer> order = IntStream.range(0, samples.size()).boxed()
        .sorted(Comparator.comparingInt((Integer i) -> -samples.get(i).length())
            .thenComparingInt(i -> i))
        .toList();
    List<List<Integer>> batches = new ArrayList<>();
    List<Integer> current = new ArrayList<>();
    int longest = 0;
    for (int i : order) {
      int len = samples.get(i).length();
      int padded = Math.max(longest, len) * (current.size() + 1);
      if (!current.isEmpty() && padded > tokenBudget) {
        batches.add(current);
        current = new ArrayList<>();
        longest = 0;
      }
      current.add(i);
      longest = Math.max(longest, len);
    }
    if (!current.isEmpty()) {
      batches.add(current);
    }
    return batches;
  }
}
