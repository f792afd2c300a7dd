package arbor.synthesis;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;

class HumanGeneratorTest {
  private static final GroupContext.Member PAPER = Groups.paper("p", "P", "Alpha paragraph.", "Beta paragraph.", "Gamma paragraph.");

  @Test
  void theAnnotatorWithTheMostVerbatimParagraphsGivesTheEvidenceAndCaptionsAreLeftOut() {
    var q = new GroupContext.SourceQuestion("q1", " What is beta? ", List.of(
        List.of("Alpha paragraph."),
        List.of("Beta paragraph.", "FLOAT SELECTED: Table 1: numbers", "Gamma paragraph."),
        List.of("Beta paragraph.", "A paragraph that is not in the paper.", "Alpha paragraph.")));
    var outcome = new HumanGenerator().generate(Groups.group(Groups.withQuestions(PAPER, q)), 3);
    assertEquals(1, outcome.queries().size());
    Query query = outcome.queries().get(0);
    assertEquals("In the paper \"P\", what is beta?", query.question(), "scoped to its paper by title");
    assertEquals("q1", query.sourceId());
    assertEquals(List.of(new Evidence("p", "Beta paragraph."), new Evidence("p", "Gamma paragraph.")), query.evidence());
  }

  @Test
  void aQuestionThatStartsWithAnAcronymKeepsItsCapitals() {
    assertEquals("In the paper \"T\", BERT is fine-tuned how?", HumanGenerator.scoped(" BERT is fine-tuned how?", " T "));
  }

  @Test
  void aQuestionWhoseEvidenceIsNowhereInThePaperIsSkippedWithItsReason() {
    var q = new GroupContext.SourceQuestion("q2", "What?", List.of(List.of("Not in the paper.")));
    var outcome = new HumanGenerator().generate(Groups.group(Groups.withQuestions(PAPER, q)), 3);
    assertTrue(outcome.queries().isEmpty());
    assertEquals(List.of("human: no annotator's evidence is verbatim in the clean paragraphs (q2)"), outcome.skipped());
  }
}
