package arbor.notebook;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class EvidenceViewTest {
  private static final EvidenceView.Paper SEED = new EvidenceView.Paper("p1", "Seed paper",
      List.of("intro", "methods", "THE EVIDENCE", "results", "discussion", "references"));
  private static final EvidenceView.Paper OTHER = new EvidenceView.Paper("p2", "Other paper", List.of("alpha", "beta", "gamma"));
  private static final EvidenceView.Query QUERY = new EvidenceView.Query("q-1", "Which <data> sets?", "singleton",
      List.of(new EvidenceView.Evidence("p1", "THE EVIDENCE")));

  @Test
  void evidenceIsHighlightedWithItsNeighboursAndTheGapsCounted() {
    String column = EvidenceView.paperColumn(SEED, QUERY.evidence(), 1);
    assertTrue(column.contains("background:#fff3a0;padding:2px\">[2] THE EVIDENCE"), column);
    assertTrue(column.contains("[1] methods") && column.contains("[3] results"), column);
    assertFalse(column.contains("[0] intro"), column);
    assertTrue(column.contains("\u2026 1 paragraph \u2026") && column.contains("\u2026 2 paragraphs \u2026"), column);
  }

  @Test
  void aPaperTheQueryDoesNotCiteSaysSo() {
    String column = EvidenceView.paperColumn(OTHER, QUERY.evidence(), 1);
    assertTrue(column.contains("not cited by this query"), column);
    assertTrue(column.contains("0 evidence"), column);
  }

  @Test
  void evidenceThatMatchesNoParagraphIsReported() {
    var evidence = List.of(new EvidenceView.Evidence("p2", "not in the paper"));
    assertTrue(EvidenceView.paperColumn(OTHER, evidence, 0).contains("1 evidence text(s) match no paragraph"));
  }

  @Test
  void theViewShowsTheEscapedQuestionAndOneColumnPerPaper() {
    String html = EvidenceView.render(QUERY, List.of(SEED, OTHER), 0);
    assertTrue(html.contains("Which &lt;data&gt; sets?"), html);
    assertTrue(html.contains("1 evidence paragraphs from 1 of 2 papers"), html);
    assertTrue(html.contains("Seed paper") && html.contains("Other paper"));
  }
}
