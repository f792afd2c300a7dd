package arbor.judge;

import arbor.text.Interval;
import arbor.text.NormalizedText;
import arbor.synthesis.Evidence;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A judge case with every span located in the papers' noisy text under {@link NormalizedText}:
 * each evidence paragraph in its own paper, each predicted span in the first paper of the group
 * (in group order) that holds it whole, else the first that holds most of it.
 *
 * @param evidence each evidence item with its interval, or none where it could not be located
 * @param predicted each predicted span with its paper and interval, or none where no paper holds it
 */
public record AlignedCase(List<Located> evidence, List<Located> predicted) {

  /** A span and where it lies; {@code paperId} and {@code interval} are null when it was not found. */
  public record Located(String text, String paperId, Interval interval) {
    public boolean found() {
      return interval != null;
    }
  }

  public static AlignedCase of(JudgeCase c) {
    Map<String, NormalizedText> papers = new LinkedHashMap<>();
    c.papers().forEach((id, text) -> papers.put(id, NormalizedText.of(text == null ? "" : text)));
    List<Located> evidence = new ArrayList<>();
    for (Evidence e : c.evidence()) {
      NormalizedText paper = papers.get(e.paperId());
      Optional<Interval> at = paper == null ? Optional.empty() : paper.locate(e.text());
      evidence.add(new Located(e.text(), at.isPresent() ? e.paperId() : null, at.orElse(null)));
    }
    List<Located> predicted = new ArrayList<>();
    for (String span : c.predicted()) predicted.add(locate(span, papers));
    return new AlignedCase(evidence, predicted);
  }

  private static Located locate(String span, Map<String, NormalizedText> papers) {
    String needle = NormalizedText.of(span).text();
    if (needle.isEmpty()) return new Located(span, null, null);
    for (var p : papers.entrySet()) {
      int at = p.getValue().text().indexOf(needle);
      if (at >= 0) return new Located(span, p.getKey(), p.getValue().toSource(at, at + needle.length()));
    }
    for (var p : papers.entrySet()) {
      Optional<int[]> r = p.getValue().find(needle);
      if (r.isPresent()) return new Located(span, p.getKey(), p.getValue().toSource(r.get()[0], r.get()[1]));
    }
    return new Located(span, null, null);
  }

  /** The located intervals of {@code spans}, by paper. */
  public static Map<String, List<Interval>> byPaper(List<Located> spans) {
    Map<String, List<Interval>> out = new HashMap<>();
    for (Located l : spans) {
      if (l.found()) out.computeIfAbsent(l.paperId(), k -> new ArrayList<>()).add(l.interval());
    }
    return out;
  }
}
