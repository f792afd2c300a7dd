package arbor.jobs.bench.rlm;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * QASPER's paragraph-level evidence F1: predicted spans become the paragraphs that contain them,
 * and the F1 between predicted and annotated paragraph sets is taken for the best annotator.
 */
public final class ParagraphEvidence {
  private ParagraphEvidence() {}

  /** The paragraphs of a QASPER markdown paper: blank-line separated blocks, headings left out. */
  public static List<String> paragraphs(String paper) {
    List<String> out = new ArrayList<>();
    for (String block : paper.split("\\n\\s*\\n")) {
      String p = block.strip();
      if (!p.isEmpty() && !p.startsWith("#")) {
        out.add(p);
      }
    }
    return out;
  }

  /** The paragraphs holding each span (by where the span starts); spans found nowhere count for nothing. */
  public static Set<String> paragraphsOf(List<String> spans, List<String> paragraphs) {
    Set<String> out = new HashSet<>();
    for (String span : spans) {
      String s = span.strip();
      if (s.isEmpty()) {
        continue;
      }
      String head = s.length() > 80 ? s.substring(0, 80) : s;
      for (String p : paragraphs) {
        if (p.contains(s) || p.contains(head)) {
          out.add(p);
          break;
        }
      }
    }
    return out;
  }

  /** F1 of two paragraph sets, QASPER's way: both empty is 1, one empty is 0. */
  public static double f1(Set<String> predicted, Set<String> gold) {
    if (predicted.isEmpty() && gold.isEmpty()) {
      return 1.0;
    }
    if (predicted.isEmpty() || gold.isEmpty()) {
      return 0.0;
    }
    long overlap = predicted.stream().filter(gold::contains).count();
    if (overlap == 0) {
      return 0.0;
    }
    double p = (double) overlap / predicted.size();
    double r = (double) overlap / gold.size();
    return 2 * p * r / (p + r);
  }

  /** The best F1 over the annotators of a question. */
  public static double bestF1(Set<String> predicted, List<List<String>> annotators) {
    double best = 0;
    for (List<String> gold : annotators) {
      Set<String> g = new HashSet<>();
      gold.forEach(e -> g.add(e.strip()));
      best = Math.max(best, f1(predicted, g));
    }
    return best;
  }
}
