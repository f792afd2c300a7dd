package arbor.policy.generate;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Draws the next token of one sequence from its logits row, in Java, with the sequence's own
 * generator, so a sequence's tokens never depend on which other sequences share its batch.
 */
final class Sampler {

  /** A drawn token and its log-probability under softmax(logits / temperature). */
  record Draw(int token, float logProb) {}

  private Sampler() {}

  static Draw sample(float[] logits, int offset, int vocab, SamplingParams p,
      SplittableRandom rng) {
    double t = p.temperature() == 0 ? 1.0 : p.temperature();
    double max = Double.NEGATIVE_INFINITY;
    int argMax = 0;
    for (int i = 0; i < vocab; i++) {
      if (logits[offset + i] > max) {
        max = logits[offset + i];
        argMax = i;
      }
    }
    // log Z of softmax(logits / t), computed stably in double.
    double sum = 0;
    for (int i = 0; i < vocab; i++) {
      sum += Math.exp((logits[offset + i] - max) / t);
    }
    double logZ = max / t + Math.log(sum);
    int token = p.temperature() == 0 ? argMax : draw(logits, offset, vocab, p, rng, max, t, sum);
    return new Draw(token, (float) (logits[offset + token] / t - logZ));
  }

  private static int draw(float[] logits, int offset, int vocab, SamplingParams p,
      SplittableRandom rng, double max, double t, double sum) {
    double u = rng.nextDouble();
    if (p.topK() == 0 && p.topP() >= 1.0) {
      // Inverse CDF over the whole vocabulary, no sorting.
      double target = u * sum;
      double acc = 0;
      for (int i = 0; i < vocab; i++) {
        acc += Math.exp((logits[offset + i] - max) / t);
        if (acc >= target) {
          return i;
        }
      }
      return vocab - 1;
    }
    int[] cand = p.topK() > 0
        ? topK(logits, offset, vocab, p.topK())
        : nucleusCandidates(logits, offset, vocab, (1.0 - p.topP()) / vocab * sum, max, t);
    Integer[] order = new Integer[cand.length];
    for (int i = 0; i < cand.length; i++) {
      order[i] = cand[i];
    }
    // Descending logit, ties by lower id, so the order is deterministic.
    Arrays.sort(order, (a, b) -> logits[offset + a] != logits[offset + b]
        ? Float.compare(logits[offset + b], logits[offset + a]) : Integer.compare(a, b));
    int keep = order.length;
    double[] w = new double[keep];
    double kept = 0;
    for (int i = 0; i < keep; i++) {
      w[i] = Math.exp((logits[offset + order[i]] - max) / t);
      kept += w[i];
    }
    if (p.topP() < 1.0) {
      // The nucleus is taken from what top-k kept (or from the whole distribution).
      double mass = p.topK() > 0 ? kept : sum;
      double acc = 0;
      int cut = keep;
      for (int i = 0; i < keep; i++) {
        acc += w[i];
        if (acc >= p.topP() * mass) {
          cut = i + 1;
          break;
        }
      }
      keep = cut;
      kept = acc;
    }
    double target = u * kept;
    double acc = 0;
    for (int i = 0; i < keep; i++) {
      acc += w[i];
      if (acc >= target) {
        return order[i];
      }
    }
    return order[keep - 1];
  }

  /** Ids of the k largest logits (any order), by a bounded min-heap. */
  private static int[] topK(float[] logits, int offset, int vocab, int k) {
    int n = Math.min(k, vocab);
    java.util.PriorityQueue<Integer> heap = new java.util.PriorityQueue<>(n + 1, (a, b) ->
        logits[offset + a] != logits[offset + b]
            ? Float.compare(logits[offset + a], logits[offset + b]) : Integer.compare(b, a));
    for (int i = 0; i < vocab; i++) {
      heap.add(i);
      if (heap.size() > n) {
        heap.poll();
      }
    }
    return heap.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Tokens whose weight is at least {@code floor}. With floor = (1 - topP) / vocab of the mass,
   * the tokens below it hold at most 1 - topP together, so the nucleus lies inside this set and
   * sorting it alone is exact (and cheap: it is usually small).
   */
  private static int[] nucleusCandidates(float[] logits, int offset, int vocab, double floor,
      double max, double t) {
    int[] cand = new int[vocab];
    int n = 0;
    for (int i = 0; i < vocab; i++) {
      if (Math.exp((logits[offset + i] - max) / t) >= floor) {
        cand[n++] = i;
      }
    }
    return Arrays.copyOf(cand, n);
  }
}
