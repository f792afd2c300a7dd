package arbor.judge;

import arbor.text.Interval;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The judge that needs no network: deterministic, from where the spans lie in the papers.
 *
 * <ul>
 *   <li>precision: the share of the predicted characters that lie inside evidence paragraphs
 *       (a span no paper holds is all outside);
 *   <li>recall: the mean over evidence paragraphs of their credit, a paragraph's credit being
 *       the share of it the prediction covers, divided by {@code cover} and capped at 1 (with
 *       cover 0.5 a paragraph half covered is found; evidence is a whole paragraph, while the
 *       answer in it is often a sentence or two);
 *   <li>reward: the harmonic mean of the two (F1), in [0, 1]. Not their arithmetic mean, which
 *       would give 0.5 to an answer that returns every paper whole;
 *   <li>{@code precision} and {@code recall} columns: the two shares on the rubric judge's scale,
 *       {@code 1 + 9 * share}, so that the columns read alike whichever judge wrote them.
 * </ul>
 */
public final class EmbeddedJudge implements RootJudge {
  public static final String NAME = "embedded";
  private final double cover;

  public EmbeddedJudge(double cover) {
    if (!(cover > 0 && cover <= 1)) throw new IllegalArgumentException("judge.embedded.cover must be in (0, 1], got " + cover);
    this.cover = cover;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean remote() {
    return false;
  }

  @Override
  public Verdict judge(JudgeCase c, AlignedCase a) {
    Map<String, List<Interval>> predicted = AlignedCase.byPaper(a.predicted());
    double credit = 0;
    int found = 0;
    for (AlignedCase.Located e : a.evidence()) {
      if (!e.found()) continue;
      List<Interval> mine = List.of(e.interval());
      double share = (double) Interval.overlap(mine, predicted.getOrDefault(e.paperId(), List.of())) / Math.max(1, e.interval().length());
      double c1 = Math.min(1, share / cover);
      credit += c1;
      if (c1 >= 1) found++;
    }
    int evidence = a.evidence().size();
    double recall = evidence == 0 ? 1 : credit / evidence;
    Map<String, List<Interval>> truth = AlignedCase.byPaper(a.evidence());
    long predictedChars = 0;
    long inside = 0;
    int unlocated = 0;
    for (var p : predicted.entrySet()) {
      predictedChars += Interval.covered(p.getValue());
      inside += Interval.overlap(p.getValue(), truth.getOrDefault(p.getKey(), List.of()));
    }
    for (AlignedCase.Located l : a.predicted()) {
      if (!l.found() && !l.text().isBlank()) {
        predictedChars += l.text().strip().length();
        unlocated++;
      }
    }
    double precision = predictedChars == 0 ? (evidence == 0 ? 1 : 0) : (double) inside / predictedChars;
    double reward = SpanMetrics.f1(precision, recall);
    int lost = (int) a.evidence().stream().filter(e -> !e.found()).count();
    String reasoning = String.format(Locale.ROOT,
        "%d of %d evidence paragraphs found%s; %.0f%% of %d predicted characters lie in evidence%s",
        found, evidence, lost > 0 ? " (" + lost + " not located in the paper text)" : "",
        100 * precision, predictedChars, unlocated > 0 ? "; " + unlocated + " span(s) found in no paper" : "");
    return Verdict.scored(scale(precision), scale(recall), reward, reasoning);
  }

  /** A share in [0, 1] on the rubric's 1-10 scale. */
  static double scale(double share) {
    return 1 + 9 * share;
  }
}
