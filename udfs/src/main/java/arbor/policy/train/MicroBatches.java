package arbor.policy.train;

import arbor.policy.model.ModelConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Splits samples into micro-batches whose padded cost (rows x cost of the longest row) stays
 * within a budget, so time and activation memory per micro-batch are bounded whatever the mix
 * of lengths. Samples are grouped by length (longest first) to waste little on padding. A
 * sample over the budget on its own gets a micro-batch of its own.
 */
public final class MicroBatches {

  private MicroBatches() {}

  /**
   * The cost of one padded row of length T in token-equivalents: {@code T * (1 + w * T)}. The
   * matmuls cost about 2N FLOPs per token and causal attention about 2 L H D T on average over
   * a row of T (L layers, H query heads of dimension D), so {@code w = L H D / N} makes a token
   * of a long row cost what its attention adds. {@link #TOKENS} (w = 0) counts tokens only.
   *
   * @param attentionWeight w, per token of length
   */
  public record TokenCost(double attentionWeight) {

    public static final TokenCost TOKENS = new TokenCost(0);

    /** w for a model: N is the matmul parameters of the layers (the head runs on few rows). */
    public static TokenCost of(ModelConfig c) {
      double h = c.hiddenSize();
      double qDim = (double) c.numHeads() * c.headDim();
      double kvDim = (double) c.numKvHeads() * c.headDim();
      double perLayer = h * qDim * 2 + h * kvDim * 2 + 3 * h * c.intermediateSize();
      return new TokenCost(qDim / perLayer);  // L cancels: L * H * D / (L * perLayer)
    }

    public double of(int rows, int longest) {
      return rows * (longest + attentionWeight * (double) longest * longest);
    }
  }

  /**
   * Groups items offered one at a time, longest first, into micro-batches within the budget;
   * for callers that stream their samples instead of holding them.
   */
  public static final class Packer<T> {
    private final double budget;
    private final TokenCost cost;
    private List<T> current = new ArrayList<>();
    private int longest;

    public Packer(double budget, TokenCost cost) {
      if (!(budget >= 1)) {
        throw new IllegalArgumentException("micro-batch budget must be >= 1, got " + budget);
      }
      this.budget = budget;
      this.cost = cost;
    }

    /** Adds an item; returns the micro-batch it closed (the items before it), or null. */
    public List<T> offer(T item, int length) {
      List<T> full = null;
      int after = Math.max(longest, length);
      if (!current.isEmpty() && cost.of(current.size() + 1, after) > budget) {
        full = flush();
        after = length;
      }
      current.add(item);
      longest = after;
      return full;
    }

    /** The open micro-batch, if any (empty list otherwise); the packer starts afresh. */
    public List<T> flush() {
      List<T> full = current;
      current = new ArrayList<>();
      longest = 0;
      return full;
    }
  }

  /** Micro-batches of sample indices by padded token count only. */
  public static List<List<Integer>> byTokenBudget(List<ResponseSample> samples, int tokenBudget) {
    return byCost(samples, tokenBudget, TokenCost.TOKENS);
  }

  /** Micro-batches of sample indices, longest first, each within {@code budget} by {@code cost}. */
  public static List<List<Integer>> byCost(List<ResponseSample> samples, double budget,
      TokenCost cost) {
    List<Integer> order = IntStream.range(0, samples.size()).boxed()
        .sorted(Comparator.comparingInt((Integer i) -> -samples.get(i).length())
            .thenComparingInt(i -> i))
        .toList();
    Packer<Integer> packer = new Packer<>(budget, cost);
    List<List<Integer>> batches = new ArrayList<>();
    for (int i : order) {
      List<Integer> full = packer.offer(i, samples.get(i).length());
      if (full != null) {
        batches.add(full);
      }
    }
    List<Integer> last = packer.flush();
    if (!last.isEmpty()) {
      batches.add(last);
    }
    return batches;
  }
}
