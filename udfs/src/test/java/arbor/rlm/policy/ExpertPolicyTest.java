package arbor.rlm.policy;

import arbor.conf.PromptStrategy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.rlm.NodeRecord;
import arbor.rlm.NodeStatus;
import arbor.rlm.Prompts;
import arbor.rlm.RlmContext;
import arbor.rlm.RlmLimits;
import arbor.rlm.TreeRunner;
import arbor.rlm.sandbox.InProcessSandbox;
import arbor.rlm.sandbox.SandboxLimits;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExpertPolicyTest {
  static final String TRANSLATION = """
      Neural Machine Translation with Subword Units
      Abstract
      We translate rare words with subword units.

      1 Introduction
      Rare words are a problem for translation systems. Vocabulary size is limited.

      2 Data
      We train on the WMT 2015 English-German corpus with 4.2 million sentence pairs. The test
      set is newstest2015.

      3 Results
      Our system improves the BLEU score by 1.1 points over the baseline.
      """;
  static final String PARSING = """
      Fast Dependency Parsing
      Abstract
      A greedy parser with a neural classifier.

      1 Method
      The parser uses an arc-standard transition system and a feed-forward classifier.

      2 Experiments
      We train the parser on the Penn Treebank, converted to Stanford dependencies, and report
      labelled attachment scores on section 23.
      """;
  static final String BIOLOGY = """
      Protein Folding Kinetics
      Abstract
      We measure folding rates of small proteins.

      1 Setup
      Rates were measured by stopped-flow fluorescence at 25 degrees.
      """;

  static Map<String, String> threePapers() {
    Map<String, String> papers = new LinkedHashMap<>();
    papers.put("nmt", TRANSLATION);
    papers.put("parse", PARSING);
    papers.put("bio", BIOLOGY);
    return papers;
  }

  static TreeRunner expert(InProcessSandbox sandbox, PromptStrategy strategy) {
    Prompts prompts = Prompts.load(Path.of(System.getProperty("arbor.repo", ".."), "conf", "prompts"), strategy);
    return new TreeRunner(sandbox, new ExpertPolicy(ExpertPolicy.Settings.defaults()), prompts, RlmLimits.defaults());
  }

  @Test
  void theExpertDelegatesTheRelevantPapersAndReturnsVerbatimSpans() throws Exception {
    Map<String, String> papers = threePapers();
    try (InProcessSandbox sandbox = new InProcessSandbox(SandboxLimits.defaults())) {
      TreeRunner runner = expert(sandbox, PromptStrategy.FULL);
      TreeRunner.TreeResult tree = runner.run("x", "Which training corpus do the systems train on?",
          new RlmContext.Papers(papers));
      NodeRecord root = tree.root();
      assertEquals(NodeStatus.FINAL, root.status(), root.turns().toString());
      List<String> spans = List.of(new ObjectMapper().readValue(root.finalAnswerJson(), String[].class));
      assertTrue(spans.stream().anyMatch(s -> s.contains("WMT 2015 English-German corpus")), spans.toString());
      assertTrue(spans.stream().anyMatch(s -> s.contains("Penn Treebank")), spans.toString());
      for (String s : spans) {
        assertTrue(TRANSLATION.contains(s) || PARSING.contains(s), "not verbatim: " + s);
      }
      assertTrue(tree.nodes().stream().noneMatch(n -> n.prompt().contains("Protein Folding")),
          "the irrelevant paper was not delegated");
      assertTrue(tree.nodes().stream().allMatch(n -> n.status() == NodeStatus.FINAL));
      assertTrue(tree.nodes().stream().flatMap(n -> n.turns().stream()).noneMatch(t -> t.replError()),
          "the expert's code runs without errors");
    }
  }

  /**
   * A structure question names no word of its evidence; the expert finds the section by its
   * heading (PDF text: a numbered title line inside a block) and cuts the sentence under it.
   */
  @Test
  void aQuestionAboutAPartOfThePaperIsAnsweredFromUnderThatPartsHeading() throws Exception {
    String tsp = """
        TSP - Infrastructure for the Traveling Salesperson Problem
        Abstract
        The traveling salesperson problem is a well known optimization problem.
        4. Examples
        We solve a tour through 312 cities of the USA and Canada with the nearest neighbour heuristic,
        then improve it with two-opt moves.
        5. Conclusion
        In this paper we presented the R extension package TSP which implements an infrastructure
        to handle and solve TSPs. Together with a simple interface it allows easy usage.
        """;
    Map<String, String> papers = new LinkedHashMap<>();
    papers.put("tsp", tsp);
    papers.put("bio", BIOLOGY);
    try (InProcessSandbox sandbox = new InProcessSandbox(SandboxLimits.defaults())) {
      TreeRunner.TreeResult tree = expert(sandbox, PromptStrategy.FULL).run("c",
          arbor.synthesis.SectionRole.CONCLUSIONS.aboutOne("TSP - Infrastructure for the Traveling Salesperson Problem"),
          new RlmContext.Papers(papers));
      assertEquals(NodeStatus.FINAL, tree.root().status(), tree.root().turns().toString());
      List<String> spans = List.of(new ObjectMapper().readValue(tree.root().finalAnswerJson(), String[].class));
      assertTrue(spans.stream().anyMatch(s -> s.startsWith("In this paper we presented the R extension package TSP")), spans.toString());
      for (String s : spans) assertTrue(tsp.contains(s), "not verbatim: " + s);
    }
  }

  /** Every response of every node of a tree, in path order: what the policy wrote. */
  static List<String> code(TreeRunner.TreeResult tree) {
    return tree.nodes().stream().flatMap(n -> n.turns().stream().map(t -> n.nodeId().replaceFirst("^[^:]*:", "")
        + " " + t.index() + ": " + t.response())).toList();
  }

  @Test
  void theSamplesOfOneQueryAreDifferentTreesAndARerunReproducesEachOfThem() {
    Map<String, String> papers = threePapers();
    try (InProcessSandbox sandbox = new InProcessSandbox(SandboxLimits.defaults())) {
      TreeRunner runner = expert(sandbox, PromptStrategy.REDUCED);
      String question = "Which training corpus do the systems train on?";
      List<List<String>> first = new java.util.ArrayList<>();
      for (int g = 0; g < 4; g++) {
        first.add(code(runner.run("s" + g, question, new RlmContext.Papers(papers), arbor.rlm.TreeSeed.of("run", 1, "q1", g))));
      }
      assertTrue(new java.util.HashSet<>(first).size() >= 3,
          "4 samples of one query wrote only " + new java.util.HashSet<>(first).size() + " distinct trees");
      // A rerun of sample 2, in another order and under another tree id, writes the same code.
      assertEquals(first.get(2), code(runner.run("again", question, new RlmContext.Papers(papers),
          arbor.rlm.TreeSeed.of("run", 1, "q1", 2))));
    }
  }

  /**
   * The dataset's structure questions describe a part of a paper without its heading's words; the
   * expert searches for the words such a heading uses. Without them it found none of the demo's
   * sft evidence (span F1 0 on every tree) and the demo's cold start had nothing to learn from.
   */
  @Test
  void aQuestionThatDescribesAPartOfAPaperSearchesTheWordsItsHeadingWouldUse() {
    for (arbor.synthesis.SectionRole role : arbor.synthesis.SectionRole.values()) {
      for (String question : List.of(role.aboutOne("Reading Graphs"), role.across("Reading Graphs"))) {
        List<String> kws = QuestionKeywords.of(question, 3);
        assertTrue(kws.stream().anyMatch(k -> arbor.synthesis.SectionRole.of(k).equals(java.util.Optional.of(role))),
            role + ": no keyword names its heading in " + kws + " for: " + question);
      }
    }
    assertTrue(QuestionKeywords.sectionCues("Which datasets are used for training the dependency parser?").isEmpty());
  }

  @Test
  void keywordsArePhrasesThenWordsThenVariants() {
    List<String> kws = QuestionKeywords.of("Which datasets are used for training the dependency parser?", 1);
    // Phrases are adjacent content words only: a literal search for "training parser" would miss.
    assertEquals("dependency parser", kws.getFirst());
    assertTrue(kws.containsAll(List.of("datasets", "training", "parser", "dataset", "parsers", "dependency")), kws.toString());
    assertTrue(kws.stream().noneMatch(k -> k.equals("which") || k.equals("used")));
  }
}
