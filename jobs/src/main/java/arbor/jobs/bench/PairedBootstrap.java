package arbor.jobs.bench;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The percentile bootstrap of a mean paired difference: the same units (queries) measured
 * under two conditions, {@code a[i]} against {@code b[i]}, resampled as pairs with replacement,
 * so what varies between units (an easy query is easy for both) cancels out of the interval.
 *
 * @param resamples how many resampled means the interval is read from
 * @param seed the resampling draw: the same seed gives the same interval
 */
record PairedBootstrap(int resamples, long seed) {

  /** A mean difference {@code a - b} over {@code n} pairs and its two-sided 95% interval. */
  record Interval(double mean, double low, double high, int n) {}

  PairedBootstrap {
    if (resamples < 1) throw new IllegalArgumentException("bootstrap: resamples must be >= 1, got " + resamples);
  }

  Interval difference(double[] a, double[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException("bootstrap: paired samples differ in length: " + a.length + " and " + b.length);
    }
    int n = a.length;
    if (n == 0) throw new IllegalArgumentException("bootstrap: no pairs to resample");
    double[] d = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      if (!Double.isFinite(a[i]) || !Double.isFinite(b[i])) {
        throw new IllegalArgumentException("bootstrap: pair " + i + " is not finite: " + a[i] + ", " + b[i]);
      }
      d[i] = a[i] - b[i];
      sum += d[i];
    }
    SplittableRandom rng = new SplittableRandom(seed);
    double[] means = new double[resamples];
    for (int r = 0; r < resamples; r++) {
      double s = 0;
      for (int i = 0; i < n; i++) s += d[rng.nextInt(n)];
      means[r] = s / n;
    }
    Arrays.sort(means);
    // The 2.5% and 97.5% order statistics: the interval leaves 2.5% of the resamples on each side.
    int lo = (int) Math.floor(0.025 * resamples);
    int hi = Math.max(lo, (int) Math.ceil(0.975 * resamples) - 1);
    return new Interval(sum / n, means[lo], means[hi], n);
  }
}
