package arbor.jobs.stats;

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
public record GroupBootstrap(int resamples, long seed) {

  /** The mean over queries and its interval; {@code groups} is how many paper groups it rests on. */
  public record Interval(double mean, double low, double high, int queries, int groups) {}

  public GroupBootstrap {
    if (resamples < 1) throw new IllegalArgumentException("bootstrap: resamples must be >= 1, got " + resamples);
  }

  public static GroupBootstrap standard() {
    return new GroupBootstrap(2_000, 17L);
  }

  /** {@code score[i]} is query i's score, {@code group[i]} the paper group it was made from. */
  public Interval of(String[] group, double[] score) {
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
    double[] sums = new double[byGroup.size()];
    int[] sizes = new int[byGroup.size()];
    int k = 0;
    for (double[] g : byGroup.values()) {
      sums[k] = g[0];
      sizes[k++] = (int) g[1];
    }
    double[] interval = percentile(sums, sizes);
    return new Interval(total / score.length, interval[0], interval[1], score.length, sums.length);
  }

  /**
   * The 95% percentile interval of the query-weighted mean, groups drawn with replacement:
   * group j holds {@code sizes[j]} queries whose scores sum to {@code sums[j]}. A group of ten
   * queries counts ten times, as in the point estimate.
   */
  public double[] percentile(double[] sums, int[] sizes) {
    int g = sums.length;
    SplittableRandom rng = new SplittableRandom(seed);
    double[] means = new double[resamples];
    for (int r = 0; r < resamples; r++) {
      double s = 0;
      long count = 0;
      for (int j = 0; j < g; j++) {
        int pick = rng.nextInt(g);
        s += sums[pick];
        count += sizes[pick];
      }
      means[r] = s / count;
    }
    return middle95(means);
  }

  /**
   * The same interval over several replicates: students of one recipe trained with different
   * seeds and scored on the same queries. {@code sums[r][j]} is replicate r's sum over group j's
   * {@code sizes[j]} queries. Each resample draws the replicates with replacement, then the groups
   * (the same groups for every drawn replicate, as the queries are shared), so the interval holds
   * the spread between trained students as well as between paper groups. With a few replicates it
   * is still too narrow (three replicates can only show three students' spread).
   */
  public double[] percentile(double[][] sums, int[] sizes) {
    int reps = sums.length;
    int g = sizes.length;
    for (double[] row : sums) {
      if (row.length != g) throw new IllegalArgumentException("bootstrap: a replicate has " + row.length + " groups, not " + g);
    }
    SplittableRandom rng = new SplittableRandom(seed);
    double[] means = new double[resamples];
    int[] drawn = new int[reps];
    for (int r = 0; r < resamples; r++) {
      for (int i = 0; i < reps; i++) drawn[i] = rng.nextInt(reps);
      double s = 0;
      long count = 0;
      for (int j = 0; j < g; j++) {
        int pick = rng.nextInt(g);
        for (int rep : drawn) s += sums[rep][pick];
        count += (long) sizes[pick] * reps;
      }
      means[r] = s / count;
    }
    return middle95(means);
  }

  /** The 2.5% and 97.5% order statistics: the interval leaves 2.5% of the resamples on each side. */
  private static double[] middle95(double[] means) {
    Arrays.sort(means);
    int lo = (int) Math.floor(0.025 * means.length);
    int hi = Math.max(lo, (int) Math.ceil(0.975 * means.length) - 1);
    return new double[] {means[lo], means[hi]};
  }
}
