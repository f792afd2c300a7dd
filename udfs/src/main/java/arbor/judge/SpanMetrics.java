package arbor.judge;

import arbor.text.Interval;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Character-span precision, recall and F1 (method section 7): predicted and ground-truth spans as
 * half-open intervals of the papers' noisy text, merged per paper, micro-averaged over papers
 * (overlaps, predicted and true characters are summed over papers before dividing). A span that
 * could not be located counts its own length as predicted (or true) characters that overlap
 * nothing, so a made-up span costs precision and unlocatable evidence costs recall.
 *
 * <p>No prediction against some evidence is 0, 0, 0; no prediction against no evidence is 1, 1, 1.
 */
public record SpanMetrics(double precision, double recall, double f1, long predictedChars, long trueChars,
    long overlapChars) {

  public static SpanMetrics of(AlignedCase c) {
    Map<String, List<Interval>> predicted = AlignedCase.byPaper(c.predicted());
    Map<String, List<Interval>> truth = AlignedCase.byPaper(c.evidence());
    long p = unlocated(c.predicted());
    long t = unlocated(c.evidence());
    long overlap = 0;
    Set<String> papers = new HashSet<>(predicted.keySet());
    papers.addAll(truth.keySet());
    for (String paper : papers) {
      List<Interval> pi = predicted.getOrDefault(paper, List.of());
      List<Interval> ti = truth.getOrDefault(paper, List.of());
      p += Interval.covered(pi);
      t += Interval.covered(ti);
      overlap += Interval.overlap(pi, ti);
    }
    return of(p, t, overlap);
  }

  /** The scores of summed character counts. */
  public static SpanMetrics of(long predictedChars, long trueChars, long overlapChars) {
    if (predictedChars == 0 && trueChars == 0) return new SpanMetrics(1, 1, 1, 0, 0, 0);
    double precision = predictedChars == 0 ? 0 : (double) overlapChars / predictedChars;
    double recall = trueChars == 0 ? 0 : (double) overlapChars / trueChars;
    return new SpanMetrics(precision, recall, f1(precision, recall), predictedChars, trueChars, overlapChars);
  }

  public static double f1(double precision, double recall) {
    return precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall);
  }

  private static long unlocated(List<AlignedCase.Located> spans) {
    long n = 0;
    for (AlignedCase.Located l : spans) if (!l.found()) n += l.text().strip().length();
    return n;
  }
}
