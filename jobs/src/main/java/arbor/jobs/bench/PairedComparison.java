package arbor.jobs.bench;

import arbor.jobs.stats.GroupBootstrap;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Two policies A and B scored on the same held-out queries, compared the way their dependence
 * allows. Queries made from one paper group share their evidence, so they are not independent:
 * the unit of resampling and of the null hypothesis is the group, not the query.
 *
 * <ul>
 *   <li><b>Cluster bootstrap</b>: resample the groups with replacement, each bringing every one of
 *       its queries' paired differences; the statistic is the mean difference over all queries of
 *       the resample (their summed differences over their count), and the interval is its 2.5% and
 *       97.5% order statistics. With a handful of groups the percentile interval is too narrow (it
 *       cannot see beyond the groups it has), which is why the exact test is reported beside it.
 *   <li><b>Sign-flip test</b> (paired permutation test, two-sided) at the group level: under H0
 *       (A and B are exchangeable within each query) every group's summed difference is as likely
 *       negated as not, independently of the other groups. The statistic is the sum over groups of
 *       each group's summed difference: the sum, not the group mean, so that it is the number of
 *       queries times the same query-weighted mean difference the interval is about (a mean per
 *       group would weigh a group of one query like a group of ten, a different estimand). The
 *       p-value is the share of sign patterns whose |statistic| reaches the observed one, the
 *       observed pattern included, ties counted as extreme.
 * </ul>
 *
 * <p>The scores are each query's mean over its samples, already drawn with common random numbers
 * for both policies; a query one policy has no score for (every tree an infrastructure failure) is
 * the caller's to leave out and to report, as a failure is not a score of 0.
 *
 * @param resamples bootstrap resamples the interval is read from (10,000 is plenty)
 * @param signDraws Monte Carlo sign patterns when there are too many groups to enumerate
 * @param seed the one seed of both random draws: the same seed and input give the same result
 */
record PairedComparison(int resamples, int signDraws, long seed) {
  /** Scores closer than this are a tie: the two policies did the same on the query. */
  static final double TIE = 1e-12;
  /** Up to this many groups with a non-zero difference, the 2^m sign patterns are enumerated. */
  static final int EXACT_MAX_GROUPS = 20;

  /**
   * The comparison of A against B.
   *
   * @param meanDifference mean over queries of A - B
   * @param low the 2.5% point of the group bootstrap of that mean
   * @param high its 97.5% point
   * @param p two-sided p-value of the group sign-flip test
   * @param exact whether p is from every sign pattern (true) or a fixed-seed Monte Carlo sample
   * @param patterns sign patterns p is a share of: 2^signGroups when exact, else draws + 1 (the
   *     observed pattern)
   * @param queries paired queries
   * @param groups paper groups they come from
   * @param signGroups groups whose summed difference is not zero: the only ones a sign flip moves
   * @param wins queries where A scored above B
   * @param ties queries where they scored the same (within {@link #TIE})
   * @param losses queries where A scored below B
   */
  record Result(double meanDifference, double low, double high, double p, boolean exact, long patterns,
      int queries, int groups, int signGroups, int wins, int ties, int losses) {}

  PairedComparison {
    if (resamples < 1) throw new IllegalArgumentException("paired comparison: resamples must be >= 1, got " + resamples);
    if (signDraws < 1) throw new IllegalArgumentException("paired comparison: sign draws must be >= 1, got " + signDraws);
  }

  /** 10,000 bootstrap resamples and 100,000 sign patterns when they are sampled. */
  static PairedComparison standard(long seed) {
    return new PairedComparison(10_000, 100_000, seed);
  }

  /**
   * Compares A with B over queries {@code i}: {@code a[i]} and {@code b[i]} are the two policies'
   * scores of query {@code i}, {@code group[i]} the paper group it was made from.
   */
  Result compare(String[] group, double[] a, double[] b) {
    if (group.length != a.length || a.length != b.length) {
      throw new IllegalArgumentException("paired comparison: groups, scores of A and scores of B differ in length: "
          + group.length + ", " + a.length + " and " + b.length);
    }
    int n = a.length;
    if (n == 0) throw new IllegalArgumentException("paired comparison: no queries to compare");
    int wins = 0, ties = 0, losses = 0;
    double total = 0;
    // Per group, in order of first appearance (so the draws below depend on the input alone):
    // the summed difference and the number of queries.
    Map<String, double[]> byGroup = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      if (group[i] == null) throw new IllegalArgumentException("paired comparison: query " + i + " has no group");
      if (!Double.isFinite(a[i]) || !Double.isFinite(b[i])) {
        throw new IllegalArgumentException("paired comparison: query " + i + " has a score that is not finite: "
            + a[i] + ", " + b[i]);
      }
      double d = a[i] - b[i];
      if (Math.abs(d) <= TIE) {
        // A tie is exactly no difference, so the tie count, the mean and the test agree on it.
        d = 0;
        ties++;
      } else if (d > 0) {
        wins++;
      } else {
        losses++;
      }
      total += d;
      double[] g = byGroup.computeIfAbsent(group[i], k -> new double[2]);
      g[0] += d;
      g[1]++;
    }
    int groups = byGroup.size();
    double[] sums = new double[groups];
    int[] sizes = new int[groups];
    int k = 0;
    for (double[] g : byGroup.values()) {
      sums[k] = g[0];
      sizes[k++] = (int) g[1];
    }
    double[] interval = new GroupBootstrap(resamples, seed).percentile(sums, sizes);
    SignTest test = signFlip(sums);
    return new Result(total / n, interval[0], interval[1], test.p, test.exact, test.patterns, n, groups,
        test.groups, wins, ties, losses);
  }

  /**
   * A against B pooled over replicates: students of one recipe trained with different seeds, each
   * scored on the same queries.
   *
   * @param pooled the comparison of the per-query means over replicates: its sign-flip test is of
   *     "the recipe changes nothing", its interval holds the spread between paper groups only
   * @param low the 2.5% point when the replicates are resampled as well as the groups
   * @param high its 97.5% point
   * @param perReplicate each replicate's mean difference over the queries
   */
  record Replicated(Result pooled, double low, double high, double[] perReplicate) {}

  /** {@code a[r][i]} and {@code b[r][i]} are replicate r's scores of query i, {@code group[i]} its paper group. */
  Replicated compareReplicates(String[] group, double[][] a, double[][] b) {
    int reps = a.length;
    if (reps == 0 || b.length != reps) {
      throw new IllegalArgumentException("paired comparison: " + reps + " and " + b.length + " replicates");
    }
    int n = group.length;
    double[] meanA = new double[n];
    double[] meanB = new double[n];
    double[] perReplicate = new double[reps];
    Map<String, Integer> index = new LinkedHashMap<>();
    for (String g : group) index.putIfAbsent(g, index.size());
    double[][] sums = new double[reps][index.size()];
    int[] sizes = new int[index.size()];
    for (int i = 0; i < n; i++) sizes[index.get(group[i])]++;
    for (int r = 0; r < reps; r++) {
      if (a[r].length != n || b[r].length != n) {
        throw new IllegalArgumentException("paired comparison: replicate " + r + " has " + a[r].length + " and "
            + b[r].length + " scores for " + n + " queries");
      }
      for (int i = 0; i < n; i++) {
        double d = a[r][i] - b[r][i];
        meanA[i] += a[r][i] / reps;
        meanB[i] += b[r][i] / reps;
        sums[r][index.get(group[i])] += d;
        perReplicate[r] += d / n;
      }
    }
    Result pooled = compare(group, meanA, meanB);
    double[] interval = new GroupBootstrap(resamples, seed).percentile(sums, sizes);
    return new Replicated(pooled, interval[0], interval[1], perReplicate);
  }

  private record SignTest(double p, boolean exact, long patterns, int groups) {}

  private SignTest signFlip(double[] sums) {
    // A group whose differences sum to zero contributes nothing: flipping its sign leaves every
    // statistic as it was, so each pattern of the other groups is repeated 2^z times and leaving
    // it out changes no share. They are left out, so only non-zero groups count towards the
    // exact-enumeration limit.
    double[] d = Arrays.stream(sums).filter(s -> Math.abs(s) > TIE).toArray();
    int m = d.length;
    double observed = Math.abs(Arrays.stream(d).sum());
    // Ties count as extreme; a pattern that reaches the observed |sum| in exact arithmetic may miss
    // it by rounding (the same numbers added in another order), so the bar is lowered by far less
    // than any real difference between two patterns' sums.
    double bar = observed - 1e-9 * (Arrays.stream(d).map(Math::abs).sum() + 1);
    if (m <= EXACT_MAX_GROUPS) {
      long patterns = 1L << m;
      long extreme = 0;
      for (long mask = 0; mask < patterns; mask++) {
        double s = 0;
        for (int j = 0; j < m; j++) s += (mask >>> j & 1) == 0 ? d[j] : -d[j];
        if (Math.abs(s) >= bar) extreme++;
      }
      return new SignTest((double) extreme / patterns, true, patterns, m);
    }
    // Too many to enumerate: random patterns with a fixed seed, and the observed one counted
    // among them, so p is never 0 and is a valid (slightly conservative) p-value for any draw count.
    SplittableRandom rng = new SplittableRandom(seed ^ 0x5DEECE66DL);
    long extreme = 1;
    for (int r = 0; r < signDraws; r++) {
      double s = 0;
      for (int j = 0; j < m; j++) s += rng.nextBoolean() ? d[j] : -d[j];
      if (Math.abs(s) >= bar) extreme++;
    }
    return new SignTest((double) extreme / (signDraws + 1L), false, signDraws + 1L, m);
  }
}
