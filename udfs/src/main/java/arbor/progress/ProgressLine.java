package arbor.progress;

import java.util.Locale;

/**
 * One progress report of a phase, as a plain line that reads the same on a terminal and in a log
 * file: {@code rollouts: 12/32 trees (38%), 0.9 trees/s, ETA 22 s, 14 s elapsed}. The rate is the
 * mean since the phase began (steadier than the last interval's), and the estimate of the time
 * left assumes it holds.
 *
 * @param total the units the phase will do; 0 or less when unknown (no percentage, no ETA)
 * @param workSeconds the seconds the units took, for the rate: the elapsed time while they are
 *     being done, the time the last one took once all are
 */
public record ProgressLine(String label, String unit, long done, long total, double elapsedSeconds,
    double workSeconds) {

  public ProgressLine(String label, String unit, long done, long total, double elapsedSeconds) {
    this(label, unit, done, total, elapsedSeconds, elapsedSeconds);
  }

  /** The same report with the rate taken over {@code seconds}. */
  public ProgressLine withRateOver(double seconds) {
    return new ProgressLine(label, unit, done, total, elapsedSeconds, seconds);
  }

  public String format() {
    StringBuilder s = new StringBuilder(label).append(": ");
    if (total > 0) {
      s.append(done).append('/').append(total).append(' ').append(unit)
          .append(String.format(Locale.ROOT, " (%d%%)", Math.round(100.0 * Math.min(done, total) / total)));
    } else {
      s.append(done).append(' ').append(unit);
    }
    double rate = workSeconds > 0 ? done / workSeconds : 0;
    if (done > 0) s.append(", ").append(rate(rate)).append(' ').append(unit).append("/s");
    if (total > 0 && done < total) {
      s.append(", ETA ").append(done > 0 ? duration((total - done) / rate) : "unknown");
    }
    return s.append(", ").append(duration(elapsedSeconds)).append(" elapsed").toString();
  }

  /** Two significant figures below 10 a second, whole units above: 0.93, 4.5, 37, 1250. */
  static String rate(double perSecond) {
    if (perSecond >= 10) return String.format(Locale.ROOT, "%.0f", perSecond);
    if (perSecond >= 1) return String.format(Locale.ROOT, "%.1f", perSecond);
    return String.format(Locale.ROOT, "%.2f", perSecond);
  }

  /** Seconds under two minutes, then minutes and seconds, then hours and minutes. */
  static String duration(double seconds) {
    long s = Math.round(seconds);
    if (s < 120) return s + " s";
    if (s < 3600) return (s / 60) + " min " + (s % 60) + " s";
    return (s / 3600) + " h " + (s % 3600 / 60) + " min";
  }
}
