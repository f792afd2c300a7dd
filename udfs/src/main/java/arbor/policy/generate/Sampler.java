package arbor.policy.generate;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Draws the next token of one sequence with the sequence's own generator, so its tokens never
 * depend on which other sequences share its batch. The distribution arrives precomputed by
 * libtorch (log-softmax of logits / temperature, and its exp): doing the 150k exps per token in
 * Java cost more than the model's own matmuls at batch 32.
 */
final class Sampler {

  /** A drawn token and its log-probability under softmax(logits / temperature). */
  record Draw(int token, float logProb) {}

  /**
   * Rows of distributions, row-major: {@code logProbs[row * vocab + i]} and its exp.
   */
  record Rows(float[] logProbs, float[] probs, int vocab) {}

  private Sampler() {}

  static Draw sample(Rows rows, int row, SamplingParams p, SplittableRandom rng) {
    int vocab = rows.vocab();
    int offset = row * vocab;
    float[] lp = rows.logProbs();
    int token = p.temperature() == 0 ? argMax(lp, offset, vocab) : draw(rows, offset, p, rng);
    return new Draw(token, lp[offset + token]);
  }

  private static int argMax(float[] v, int offset, int n) {
    int best = 0;
    for (int i = 1; i < n; i++) {
      if (v[offset + i] > v[offset + best]) {
        best = i;
      }
    }
    return best;
  }

  private static int draw(Rows rows, int offset, SamplingParams p, SplittableRandom rng) {
    int vocab = rows.vocab();
    float[] prob = rows.probs();
    double u = rng.nextDouble();
    double sum = 0;
    for (int i = 0; i < vocab; i++) {
      sum += prob[offset + i];
    }
    if (p.topK() == 0 && p.topP() >= 1.0) {
      // Inverse CDF over the whole vocabulary, no sorting.
      double target = u * sum;
      double acc = 0;
      for (int i = 0; i < vocab; i++) {
        acc += prob[offset + i];
        if (acc >= target) {
          return i;
        }
      }
      return vocab - 1;
    }
    int[] cand = p.topK() > 0
        ? topK(prob, offset, vocab, p.topK())
        : atLeast(prob, offset, vocab, (1.0 - p.topP()) / vocab * sum);
    Integer[] order = new Integer[cand.length];
    for (int i = 0; i < cand.length; i++) {
      order[i] = cand[i];
    }
    // Descending probability, ties by lower id, so the order is deterministic.
    Arrays.sort(order, (a, b) -> prob[offset + a] != prob[offset + b]
        ? Float.compare(prob[offset + b], prob[offset + a]) : Integer.compare(a, b));
    int keep = order.length;
    double kept = 0;
    for (int i = 0; i < keep; i++) {
      kept += prob[offset + order[i]];
    }
    if (p.topP() < 1.0) {
      // The nucleus is taken from what top-k kept (or from the whole distribution).
      double mass = p.topK() > 0 ? kept : sum;
      double acc = 0;
      int cut = keep;
      for (int i = 0; i < keep; i++) {
        acc += prob[offset + order[i]];
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
      acc += prob[offset + order[i]];
      if (acc >= target) {
        return order[i];
      }
    }
    return order[keep - 1];
  }

  /** Ids of the k most likely tokens (any order), by a bounded min-heap. */
  private static int[] topK(float[] prob, int offset, int vocab, int k) {
    int n = Math.min(k, vocab);
    java.util.PriorityQueue<Integer> heap = new java.util.PriorityQueue<>(n + 1, (a, b) ->
        prob[offset + a] != prob[offset + b]
            ? Float.compare(prob[offset + a], prob[offset + b]) : Integer.compare(b, a));
    for (int i = 0; i < vocab; i++) {
      heap.add(i);
      if (heap.size() > n) {
        heap.poll();
      }
    }
    return heap.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Tokens with probability at least {@code floor}. With floor = (1 - topP) / vocab of the mass,
   * the tokens below it hold at most 1 - topP together, so the nucleus lies inside this set and
   * sorting it alone is exact (and cheap: it is usually small).
   */
  private static int[] atLeast(float[] prob, int offset, int vocab, double floor) {
    int[] cand = new int[vocab];
    int n = 0;
    for (int i = 0; i < vocab; i++) {
      if (prob[offset + i] >= floor) {
        cand[n++] = i;
      }
    }
    return Arrays.copyOf(cand, n);
  }
}
