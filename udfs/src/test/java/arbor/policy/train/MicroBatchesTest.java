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

  @Test
  void attentionMakesLongRowsCostMoreThanTheirTokens() {
    // The 100M config (12 layers, 12 heads of 64, hidden 768, MLP 2048): the layers' matmuls
    // are 2*768*768 + 2*768*256 + 3*768*2048 = 6,291,456 per layer against 12*64 = 768 of
    // attention per token of length, so w = 768 / 6,291,456 = 1/8192: at 8,192 tokens
    // attention doubles a row's cost, at 512 it adds 1/16.
    MicroBatches.TokenCost cost = MicroBatches.TokenCost.of(
        arbor.policy.model.ModelConfig.qwen3(32_000, 768, 2048, 12, 12, 4, 64, true));
    assertEquals(1.0 / 8192, cost.attentionWeight(), 1e-15);
    assertEquals(2 * 8192.0, cost.of(1, 8192), 1e-9);
    assertEquals(4 * 512 * (1 + 1 / 16.0), cost.of(4, 512), 1e-9);
  }

  @Test
  void theAttentionCostSplitsLongRowsThatATokenCountWouldGroup() {
    List<ResponseSample> samples = List.of(ofLength(60, 4), ofLength(60, 4));
    // 2 x 64 = 128 tokens fit a budget of 150; with w = 1/64 each row costs 64 * 2 = 128.
    assertEquals(1, MicroBatches.byTokenBudget(samples, 150).size());
    assertEquals(2, MicroBatches.byCost(samples, 150, new MicroBatches.TokenCost(1 / 64.0))
        .size());
  }
}
