package arbor.jobs.report;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A 95% percentile interval for the mean score over held-out queries. Queries made from one paper
 * group share their evidence and tend to succeed or fail together, so the unit drawn with
 * replacement is the group (bringing all of its queries), not the query: resampling queries as if
 * independent would give an interval that is too narrow.
 *
 * @param resamples bootstrap resamples (2,000 is enough for a plot's interval)
 * @param seed the same seed and scores give the same interval, so the report is reproducible
 */
record GroupBootstrap(int resamples, long seed) {

  /** The mean over queries and its interval; {@code groups} is how many paper groups it rests on. */
  record Interval(double mean, double low, double high, int queries, int groups) {}

  GroupBootstrap {
    if (resamples < 1) throw new IllegalArgumentException("bootstrap: resamples must be >= 1, got " + resamples);
  }

  static GroupBootstrap standard() {
    return new GroupBootstrap(2_000, 17L);
  }

  /** {@code score[i]} is query i's score, {@code group[i]} the paper group it was made from. */
  Interval of(String[] group, double[] score) {
    if (group.length != score.length) {
      throw new IllegalArgumentException("bootstrap: " + group.length + " groups for " + score.length + " scores");
    }
    if (score.length == 0) throw new IllegalArgumentException("bootstrap: no scores");
    // Per group, in order of first appearance so the draws depend on the input alone: sum and count.
    Map<String, double[]> byGroup = new LinkedHashMap<>();
    double total = 0;
    for (int i = 0; i < score.length; i++) {
      double[] g = byGroup.computeIfAbsent(group[i], k -> new double[2]);
      g[0] += score[i];
      g[1]++;
      total += score[i];
    }
    double[][] groups = byGroup.values().toArray(new double[0][]);
    SplittableRandom rng = new SplittableRandom(seed);
    double[] means = new double[resamples];
    for (int r = 0; r < resamples; r++) {
      double sum = 0;
      double count = 0;
      for (int j = 0; j < groups.length; j++) {
        double[] pick = groups[rng.nextInt(groups.length)];
        sum += pick[0];
        count += pick[1];
      }
      // Query-weighted, like the point estimate: a group of ten queries counts ten times.
      means[r] = sum / count;
    }
    Arrays.sort(means);
    int lo = (int) Math.floor(0.025 * resamples);
    int hi = Math.max(lo, (int) Math.ceil(0.975 * resamples) - 1);
    return new Interval(total / score.length, means[lo], means[hi], score.length, groups.length);
  }
}
