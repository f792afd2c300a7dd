package arbor.synthesis;

import static org.junit.jupiter.api.Assertions.*;

import arbor.conf.OfflineSettings;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OfflineGeneratorTest {
  private static final OfflineSettings SETTINGS = new OfflineSettings(2, 8);

  private static final GroupContext GROUP = Groups.group(
      Groups.sectioned("a", "Kernels for Molecules",
          "# Introduction", "Molecules are graphs, and kernels compare graphs.",
          "# Datasets", "We use MUTAG and PTC, two small molecule collections.", "PTC has 344 compounds.",
          "# Results", "The kernel wins on MUTAG."),
      Groups.sectioned("b", "Learning on Graphs",
          "# Introduction", "Graph learning is hard.",
          "# Data", "Our experiments use the Cora citation network.",
          "# Baselines", "We compare with GCN and GraphSAGE.", "GCN is tuned for a week.", "GraphSAGE is tuned too.",
          "# Conclusion", "Graphs remain hard."),
      Groups.sectioned("c", "Speech Recognition at Scale",
          "# Introduction", "Speech is sound.",
          "# Evaluation Metrics", "Word error rate is the share of words recognised wrongly.",
          "# Results", "Word error rate falls as the acoustic models grow."));

  private final OfflineGenerator generator = new OfflineGenerator(SETTINGS, 7);

  private List<Query> queries() {
    return generator.generate(GROUP, 20).queries();
  }

  @Test
  void aRoleThatTwoPapersHaveGivesAFocusedQueryWithEveryParagraphUnderItsHeadings() {
    Query q = queries().stream().filter(x -> x.tier() == Tier.FOCUSED).findFirst().orElseThrow();
    assertEquals(List.of(
        new Evidence("a", "We use MUTAG and PTC, two small molecule collections."),
        new Evidence("a", "PTC has 344 compounds."),
        new Evidence("b", "Our experiments use the Cora citation network.")), q.evidence());
    assertTrue(q.question().startsWith("Among the papers grouped with \"Kernels for Molecules\", some give a section of its own "
        + "to the collections of examples"), q.question());
  }

  @Test
  void noQuestionUsesAWordOfTheHeadingsItsEvidenceSitsUnder() {
    for (Query q : queries()) {
      Set<String> words = LiteralShortcut.words(q.question());
      for (String heading : List.of("datasets", "data", "baselines", "metrics", "evaluation", "conclusion", "introduction")) {
        assertFalse(words.contains(heading), heading + " in " + q.question());
      }
    }
  }

  @Test
  void aRoleOfOnePaperGivesASingletonQueryThatNamesThePaper() {
    Query q = queries().stream().filter(x -> x.evidencePapers().equals(Set.of("c")) && x.question().contains("yardsticks"))
        .findFirst().orElseThrow();
    assertEquals(Tier.SINGLETON, q.tier());
    assertTrue(q.question().contains("\"Speech Recognition at Scale\""), q.question());
    assertEquals(List.of(new Evidence("c", "Word error rate is the share of words recognised wrongly.")), q.evidence());
  }

  @Test
  void aSectionLongerThanTheLimitIsNeverEvidence() {
    for (Query q : queries()) {
      assertFalse(q.evidence().stream().anyMatch(e -> e.text().startsWith("GCN is tuned")), "3 baseline paragraphs > 2: " + q);
    }
  }

  @Test
  void aCandidateThatOneSearchOfAQuestionWordSolvesIsSkippedWithItsReason() {
    // "competing" is in the baselines question and in no other paragraph: one search would solve it.
    GroupContext group = Groups.group(Groups.sectioned("x", "X",
        "# Baselines", "We compare with two competing parsers.", "# Method", "A parser reads text."));
    var outcome = generator.generate(group, 3);
    assertTrue(outcome.queries().isEmpty(), outcome.queries().toString());
    assertEquals(List.of("offline: one search of a question word ('competing') finds the evidence"), outcome.skipped());
  }

  @Test
  void everyQueryPassesTheChecksIsReproducibleAndNoOneWordSearchSolvesIt() {
    List<Query> first = queries();
    assertTrue(first.size() >= 4, first.toString());
    for (Query q : first) {
      assertTrue(EvidenceCheck.problem(q, GROUP).isEmpty(), q.toString());
      assertNull(LiteralShortcut.solvingWord(q, GROUP), q.toString());
      assertTrue(q.question().endsWith("?"), q.question());
    }
    assertEquals(first, new OfflineGenerator(SETTINGS, 7).generate(GROUP, 20).queries());
  }

  @Test
  void papersWithoutHeadingsGiveNoQuestions() {
    assertTrue(generator.generate(Groups.group(Groups.paper("p", "P", "Some text.", "More text.")), 3).queries().isEmpty());
  }

  /**
   * QASPER nests sections ("Datasets ::: SQuAD"). When ingest kept only the innermost name, the
   * subsection's paragraphs matched no role and a question about the data section lost them
   * from its evidence.
   */
  @Test
  void theSubsectionsOfASectionAreEvidenceOfItsQuestion() {
    arbor.ingest.TextPapers papers = new arbor.ingest.TextPapers(new arbor.ingest.PdfNoise(arbor.ingest.TestSettings.noise()), 0.0);
    arbor.ingest.Paper p = new arbor.ingest.MarkdownPaperReader(papers).read("n", "mem:n.txt", """
        # Reading Comprehension with Nested Sections

        ## Introduction

        Machines that read are useful.

        ## Datasets

        We evaluate on two collections.

        ## Datasets ::: SQuAD

        SQuAD has 100,000 questions on Wikipedia articles.

        ## Experimental Setup ::: Training Data

        Models train on the union of both.

        ## Experimental Setup ::: Optimiser

        Adam with a learning rate of 3e-5.
        """.getBytes(java.nio.charset.StandardCharsets.UTF_8)).papers().get(0);
    GroupContext group = Groups.group(new GroupContext.Member("n", p.title(), p.abstractText(), p.cleanParagraphs(), p.sections(),
        String.join("\n", p.cleanParagraphs()), 0.0, List.of()));
    var roles = OfflineGenerator.sections(group);
    assertEquals(List.of(1, 2, 3), roles.get(SectionRole.DATA).get("n"), "the data section with its subsections: " + p.sections());
    assertEquals(List.of(4), roles.get(SectionRole.SETUP).get("n"), "the setup subsection that is not about data");
  }

  @Test
  void headingsFindTheirRoles() {
    assertEquals(SectionRole.DATA, SectionRole.of("4.1 Datasets").orElseThrow());
    assertEquals(SectionRole.DATA, SectionRole.of("Data Collection").orElseThrow());
    assertEquals(SectionRole.BASELINES, SectionRole.of("Baselines").orElseThrow());
    assertEquals(SectionRole.CONCLUSIONS, SectionRole.of("Conclusion and Future Work").orElseThrow());
    assertEquals(SectionRole.LIMITATIONS, SectionRole.of("Limitations").orElseThrow());
    assertEquals(SectionRole.ERRORS, SectionRole.of("Error Analysis").orElseThrow());
    assertTrue(SectionRole.of("Model").isEmpty());
    assertEquals(SectionRole.DATA, SectionRole.of("Datasets ::: SQuAD").orElseThrow(), "a subsection without a role of its own");
    assertEquals(SectionRole.DATA, SectionRole.of("Experimental Setup ::: Datasets").orElseThrow(), "the innermost role");
    assertEquals(SectionRole.SETUP, SectionRole.of("Experimental Setup ::: Model").orElseThrow());
    assertTrue(SectionRole.of("").isEmpty());
    for (SectionRole r : SectionRole.values()) {
      String q = r.aboutOne("T").toLowerCase(Locale.ROOT) + " " + r.across("S").toLowerCase(Locale.ROOT);
      assertFalse(SectionRole.of(r.name().toLowerCase(Locale.ROOT)).isPresent() && q.contains(r.name().toLowerCase(Locale.ROOT)),
          "the question of " + r + " does not name the role");
    }
  }
}
