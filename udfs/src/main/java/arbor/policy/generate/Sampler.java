package arbor.policy.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Draws the next token of each row of a batch where the logits are (on the model's device), and
 * brings back only the drawn ids and their log-probabilities: copying full-vocabulary rows to
 * Java every decode step cost more than the model's own matmuls at batch 32.
 *
 * <p>Each row is drawn with one uniform from its sequence's own generator, by inverse CDF, so a
 * sequence's tokens never depend on which other sequences share its batch:
 * <ul>
 *   <li>greedy rows (temperature 0) take the argmax and use no uniform;
 *   <li>plain rows (no top-k, no top-p) walk the cumulative distribution in vocabulary order;
 *   <li>truncated rows sort by descending probability, keep the k most likely, then the smallest
 *       prefix of those whose mass reaches top-p of what is kept, and walk that.
 * </ul>
 * The recorded log-probability is always under softmax(logits / temperature) (temperature 1 for
 * greedy): the truncation only limits what can be drawn, since the learner cannot see it.
 */
final class Sampler {

  /** A drawn token and its log-probability under softmax(logits / temperature). */
  record Draw(int token, float logProb) {}

  private Sampler() {}

  /** One row (1, vocab) or (vocab) of logits, one draw. */
  static Draw sample(NDArray logits, SamplingParams p, SplittableRandom rng) {
    NDArray rows = logits.getShape().dimension() == 1 ? logits.reshape(1, -1) : logits;
    return sample(rows, List.of(p), List.of(rng))[0];
  }

  /**
   * Draws one token per row of {@code logits} (n, vocab) with row i's params and generator.
   * Arrays it makes live in the logits' manager.
   */
  static Draw[] sample(NDArray logits, List<SamplingParams> params, List<SplittableRandom> rngs) {
    int n = params.size();
    NDManager work = logits.getManager();
    float[] inverse = new float[n];
    List<Integer> greedy = new ArrayList<>();
    List<Integer> plain = new ArrayList<>();
    List<Integer> truncated = new ArrayList<>();
    double[] uniforms = new double[n];
    for (int i = 0; i < n; i++) {
      SamplingParams p = params.get(i);
      inverse[i] = (float) (p.temperature() == 0 ? 1.0 : 1.0 / p.temperature());
      if (p.temperature() == 0) {
        greedy.add(i);
      } else {
        uniforms[i] = rngs.get(i).nextDouble();
        (p.truncates() ? truncated : plain).add(i);
      }
    }
    NDArray logProbs = logits.mul(work.create(inverse, new Shape(n, 1))).logSoftmax(1);
    long[] tokens = new long[n];
    if (!greedy.isEmpty()) {
      scatter(tokens, greedy, rows(logProbs, greedy, n).argMax(1));
    }
    if (!plain.isEmpty()) {
      NDArray lp = rows(logProbs, plain, n);
      NDArray cdf = lp.exp().toType(DataType.FLOAT64, false).cumSum(1);
      scatter(tokens, plain, inverseCdf(cdf, target(work, cdf, plain, uniforms), null));
    }
    if (!truncated.isEmpty()) {
      scatter(tokens, truncated, truncatedDraw(work, rows(logProbs, truncated, n), truncated,
          params, uniforms));
    }
    NDArray chosen = logProbs.gather(work.create(tokens, new Shape(n, 1)), 1);
    float[] lp = chosen.toFloatArray();
    Draw[] out = new Draw[n];
    for (int i = 0; i < n; i++) {
      out[i] = new Draw((int) tokens[i], lp[i]);
    }
    return out;
  }

  /** Top-k, then top-p of what is kept, then inverse CDF, in descending-probability order. */
  private static NDArray truncatedDraw(NDManager work, NDArray lp, List<Integer> which,
      List<SamplingParams> params, double[] uniforms) {
    int m = which.size();
    long vocab = lp.getShape().get(1);
    float[] k = new float[m];
    double[] p = new double[m];
    for (int j = 0; j < m; j++) {
      SamplingParams sp = params.get(which.get(j));
      k[j] = sp.topK() == 0 ? vocab : Math.min(sp.topK(), vocab);
      // 2 > any cumulative share: top-p off keeps everything top-k kept.
      p[j] = sp.topP() >= 1.0 ? 2.0 : sp.topP();
    }
    NDArray order = lp.argSort(1, false);                               // (m, V) descending
    NDArray sorted = lp.gather(order, 1).exp().toType(DataType.FLOAT64, false);
    NDArray rank = work.arange(0f, (float) vocab, 1f).reshape(1, vocab);
    NDArray inK = rank.lt(work.create(k, new Shape(m, 1))).toType(DataType.FLOAT64, false);
    NDArray weights = sorted.mul(inK);
    NDArray acc = weights.cumSum(1);
    NDArray mass = acc.get(":, -1:");                                   // (m, 1)
    // Keep position i while the mass before it is still short of top-p: the smallest prefix
    // whose cumulative mass reaches top-p * mass.
    NDArray before = acc.sub(weights);
    NDArray inP = before.lt(mass.mul(work.create(p, new Shape(m, 1))))
        .toType(DataType.FLOAT64, false);
    NDArray kept = weights.mul(inP);
    NDArray cdf = kept.cumSum(1);
    NDArray keep = inK.mul(inP).sum(new int[] {1});                     // (m,) count kept
    NDArray pos = inverseCdf(cdf, target(work, cdf, which, uniforms), keep);
    return order.gather(pos.reshape(m, 1), 1).reshape(m);
  }

  /** u * total mass per row, (rows, 1). */
  private static NDArray target(NDManager work, NDArray cdf, List<Integer> which,
      double[] uniforms) {
    double[] u = new double[which.size()];
    for (int j = 0; j < u.length; j++) {
      u[j] = uniforms[which.get(j)];
    }
    return cdf.get(":, -1:").mul(work.create(u, new Shape(u.length, 1)));
  }

  /**
   * The first position whose cumulative mass reaches the target (the count of positions below
   * it), capped at the last kept position ({@code keep} - 1, or the vocabulary's last).
   */
  private static NDArray inverseCdf(NDArray cdf, NDArray target, NDArray keep) {
    NDArray below = cdf.lt(target).toType(DataType.INT64, false).sum(new int[] {1});
    NDArray last = keep == null
        ? below.getManager().create(cdf.getShape().get(1) - 1)
        : keep.sub(1).toType(DataType.INT64, false);
    return below.minimum(last);
  }

  private static NDArray rows(NDArray all, List<Integer> which, int n) {
    if (which.size() == n) {
      return all;
    }
    long[] idx = which.stream().mapToLong(Integer::longValue).toArray();
    return all.get(all.getManager().create(idx));
  }

  private static void scatter(long[] tokens, List<Integer> which, NDArray ids) {
    long[] v = ids.toType(DataType.INT64, false).toLongArray();
    for (int j = 0; j < v.length; j++) {
      tokens[which.get(j)] = v[j];
    }
  }
}
