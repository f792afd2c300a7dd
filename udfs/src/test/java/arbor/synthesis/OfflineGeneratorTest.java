package arbor.synthesis;

import static org.junit.jupiter.api.Assertions.*;

import arbor.conf.OfflineSettings;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class OfflineGeneratorTest {
  private static final OfflineSettings SETTINGS = new OfflineSettings(2, 2);

  private static final GroupContext GROUP = Groups.group(
      Groups.paper("a", "Kernels for Molecules",
          "We compare each graph kernel on molecule benchmarks. The graph kernel is fast.",
          "Training uses stochastic gradient descent with momentum."),
      Groups.paper("b", "Learning on Graphs",
          "A graph kernel measures the similarity of two graphs BIBREF3 .",
          "Our MPNN baseline is strong. We tune the MPNN for a week.",
          "Results are in Table 2."),
      Groups.paper("c", "Speech Recognition at Scale",
          "Acoustic models are trained with stochastic gradient descent.",
          "Word error rate falls as the acoustic models grow."));

  private final OfflineGenerator generator = new OfflineGenerator(SETTINGS, 7);

  @Test
  void aTermSharedByTwoPapersGivesAFocusedQueryWithEveryParagraphThatMentionsIt() {
    Query q = generator.generate(GROUP, 10).queries().stream()
        .filter(x -> x.question().contains("graph kernel")).findFirst().orElseThrow();
    assertEquals(Tier.FOCUSED, q.tier());
    assertEquals(List.of(
        new Evidence("a", "We compare each graph kernel on molecule benchmarks. The graph kernel is fast."),
        new Evidence("b", "A graph kernel measures the similarity of two graphs BIBREF3 .")), q.evidence());
    assertTrue(q.question().endsWith("?"));
  }

  @Test
  void aTermOfOnePaperGivesASingletonQueryThatNamesThePaper() {
    Query q = generator.generate(GROUP, 10).queries().stream()
        .filter(x -> x.question().contains("MPNN")).findFirst().orElseThrow();
    assertEquals(Tier.SINGLETON, q.tier());
    assertTrue(q.question().contains("\"Learning on Graphs\""), q.question());
    assertEquals(Set.of("b"), q.evidencePapers());
  }

  @Test
  void everyQueryPassesTheChecksAndIsReproducible() {
    List<Query> first = generator.generate(GROUP, 10).queries();
    assertFalse(first.isEmpty());
    for (Query q : first) assertTrue(EvidenceCheck.problem(q, GROUP).isEmpty(), q.toString());
    assertEquals(first, new OfflineGenerator(SETTINGS, 7).generate(GROUP, 10).queries());
  }

  @Test
  void placeholdersAndFunctionWordsAreNeverTerms() {
    String questions = generator.generate(GROUP, 10).queries().stream().map(Query::question).collect(Collectors.joining("\n"));
    assertFalse(questions.contains("BIBREF"), questions);
    assertFalse(questions.contains("Table"), questions);
  }

  @Test
  void bibliographyEntriesProposeNoTerms() {
    assertTrue(Terms.occurrences("\\newblock In Proceedings of ACL, System Demonstrations (2017)").isEmpty());
    assertFalse(Terms.occurrences("We evaluate on the ACL anthology corpus.").isEmpty());
  }

  @Test
  void aTermInEveryPaperIsNotAQuestionAndMaxIsRespected() {
    GroupContext two = Groups.group(
        Groups.paper("a", "One", "Neural networks are everywhere. Neural networks learn."),
        Groups.paper("b", "Two", "Neural networks again, neural networks always."));
    assertTrue(generator.generate(two, 3).queries().stream().noneMatch(q -> q.question().contains("neural networks")));
    assertTrue(generator.generate(GROUP, 1).queries().size() <= 1);
  }

  @Test
  void phrasesEndOnTheirHeadWordAndALongerOneReplacesTheShorterInsideIt() {
    GroupContext g = Groups.group(
        Groups.paper("a", "One", "Natural language processing is hard.", "We like natural language processing.",
            "Convolutional neural networks read. Convolutional neural networks again."),
        Groups.paper("b", "Two", "Speech is different."));
    List<String> questions = generator.generate(g, 10).queries().stream().map(Query::question).toList();
    assertTrue(questions.stream().anyMatch(q -> q.contains("natural language processing")), questions.toString());
    assertTrue(questions.stream().noneMatch(q -> q.contains(" language processing") && !q.contains("natural language processing")),
        questions.toString());
    assertTrue(questions.stream().noneMatch(q -> q.contains("convolutional neural ") && !q.contains("convolutional neural networks")),
        questions.toString());
  }
}
