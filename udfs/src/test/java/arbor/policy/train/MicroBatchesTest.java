package arbor.policy.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class MicroBatchesTest {

  private static ResponseSample ofLength(int prompt, int response) {
    return new ResponseSample(new int[prompt], new int[response]);
  }

  @Test
  void microBatchesStayWithinTheTokenBudgetAndCoverEverySampleOnce() {
    List<ResponseSample> samples = List.of(ofLength(10, 5), ofLength(3, 2), ofLength(20, 10),
        ofLength(4, 4), ofLength(8, 1), ofLength(2, 2));
    List<List<Integer>> batches = MicroBatches.byTokenBudget(samples, 40);
    for (List<Integer> b : batches) {
      int longest = b.stream().mapToInt(i -> samples.get(i).length()).max().orElseThrow();
      assertTrue(longest * b.size() <= 40 || b.size() == 1, "over budget: " + b);
    }
    assertEquals(List.of(0, 1, 2, 3, 4, 5), batches.stream().flatMap(List::stream).sorted()
        .collect(Collectors.toList()));
    // Longest first: the 30-token sample (index 2) rides alone, the 15 and 9 share 40 tokens.
    assertEquals(List.of(2), batches.get(0));
    assertEquals(List.of(0, 4), batches.get(1));
  }

  @Test
  void aSampleLongerThanTheBudgetGetsAMicroBatchOfItsOwn() {
    List<List<Integer>> batches = MicroBatches.byTokenBudget(
        List.of(ofLength(50, 50), ofLength(1, 1)), 10);
    assertEquals(List.of(List.of(0), List.of(1)), batches);
  }
}
