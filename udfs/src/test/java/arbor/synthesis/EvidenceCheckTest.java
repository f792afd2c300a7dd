package arbor.synthesis;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EvidenceCheckTest {
  private static final GroupContext GROUP = Groups.group(
      Groups.paper("a", "A", "The first paragraph of A.", "The second paragraph of A."),
      Groups.paper("b", "B", "Only paragraph of B."));

  private static Query query(Evidence... evidence) {
    return new Query("g-test", "What is it?", List.of(evidence), "offline", null);
  }

  @Test
  void verbatimEvidenceFromGroupPapersPasses() {
    assertEquals(Optional.empty(), EvidenceCheck.problem(query(new Evidence("a", "second paragraph"), new Evidence("b", "Only paragraph of B.")), GROUP));
  }

  @Test
  void evidenceThatIsNotVerbatimIsRejected() {
    assertEquals(Optional.of("evidence is not verbatim in the clean paragraphs of a"),
        EvidenceCheck.problem(query(new Evidence("a", "The first  paragraph of A.")), GROUP));
  }

  @Test
  void evidenceFromAPaperOutsideTheGroupIsRejected() {
    assertEquals(Optional.of("evidence paper z is not in group g-test"), EvidenceCheck.problem(query(new Evidence("z", "x")), GROUP));
  }

  @Test
  void aQueryWithoutEvidenceIsRejected() {
    assertEquals(Optional.of("no evidence"), EvidenceCheck.problem(query(), GROUP));
  }
}
