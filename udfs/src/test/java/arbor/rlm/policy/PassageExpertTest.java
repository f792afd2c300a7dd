package arbor.rlm.policy;

import arbor.conf.PromptStrategy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.rlm.NodeStatus;
import arbor.rlm.Prompts;
import arbor.rlm.RlmContext;
import arbor.rlm.RlmLimits;
import arbor.rlm.TreeRunner;
import arbor.rlm.TreeSeed;
import arbor.rlm.sandbox.InProcessSandbox;
import arbor.rlm.sandbox.SandboxLimits;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PassageExpertTest {
  private static final String QUESTION = "Which training corpus do the translation systems train on?";

  /** A paper of PDF-like lines: filler passages around one that answers {@code answer}. */
  private static String paper(String title, String answer, int filler) {
    StringBuilder sb = new StringBuilder(title).append("\nAbstract\n");
    for (int i = 0; i < filler; i++) {
      sb.append("Passage ").append(i).append(" discusses unrelated matters at some length, with enough\n")
          .append("words to fill a few lines of a page; nothing in it is of any use here at all.\n")
          .append("It goes on about layout, typesetting and the weather for a while longer too.\n")
          .append("Then it ends, as paragraphs do, with a short last line.\n");
      if (i == filler / 2 && answer != null) {
        sb.append(answer).append('\n');
      }
    }
    return sb.toString();
  }

  private static final String ANSWER = """
      The translation systems train on the WMT 2015 English-German training corpus with 4.2
      million sentence pairs; the translation corpus was tokenised and truecased before training,
      and the training corpus keeps sentences of up to 80 words for both translation directions.""";

  private static Map<String, String> papers() {
    Map<String, String> papers = new LinkedHashMap<>();
    papers.put("nmt", paper("Neural Machine Translation of Rare Words", ANSWER, 6));
    papers.put("bio", paper("Protein Folding Kinetics", null, 6));
    papers.put("tsp", paper("Heuristics for the Travelling Salesperson", null, 6));
    return papers;
  }

  private static TreeRunner runner(InProcessSandbox sandbox, boolean bound) {
    Prompts prompts = Prompts.load(Path.of(System.getProperty("arbor.repo", ".."), "conf", "prompts"), PromptStrategy.TOY);
    return new TreeRunner(sandbox, new PassageExpert(new PassageExpert.Settings(4, bound, 17)), prompts,
        RlmLimits.defaults().withBindQuestion(bound));
  }

  @Test
  void readsTheBoundQuestionDelegatesAndReturnsTheAnsweringPassageVerbatim() throws Exception {
    Map<String, String> papers = papers();
    try (InProcessSandbox sandbox = new InProcessSandbox(SandboxLimits.defaults())) {
      for (int g = 0; g < 6; g++) {
        TreeRunner.TreeResult tree = runner(sandbox, true).run("t" + g, QUESTION, new RlmContext.Papers(papers),
            TreeSeed.of("run", 1, "q", g));
        assertEquals(NodeStatus.FINAL, tree.root().status(), tree.root().turns().toString());
        assertTrue(tree.nodes().size() >= 2, "the root delegated to children");
        assertTrue(tree.nodes().stream().allMatch(n -> n.status() == NodeStatus.FINAL && n.turns().size() == 2));
        assertTrue(tree.nodes().stream().flatMap(n -> n.turns().stream()).noneMatch(t -> t.replError()),
            "the code runs without errors: " + tree.root().turns());
        assertTrue(tree.nodes().stream().flatMap(n -> n.turns().stream()).noneMatch(t -> t.response().contains(QUESTION)),
            "with the question bound the code never spells it out");
        List<String> spans = List.of(new ObjectMapper().readValue(tree.root().finalAnswerJson(), String[].class));
        assertTrue(spans.stream().anyMatch(s -> s.contains("WMT 2015 English-German")), spans.toString());
        for (String s : spans) {
          assertTrue(papers.values().stream().anyMatch(p -> p.contains(s)), "not verbatim: " + s);
        }
      }
    }
  }

  @Test
  void unboundItAssignsTheQuestionFirstAndItsSamplesDiffer() throws Exception {
    Map<String, String> papers = papers();
    Set<String> codes = new HashSet<>();
    try (InProcessSandbox sandbox = new InProcessSandbox(SandboxLimits.defaults())) {
      List<String> first = new ArrayList<>();
      for (int g = 0; g < 6; g++) {
        TreeRunner.TreeResult tree = runner(sandbox, false).run("u" + g, QUESTION, new RlmContext.Papers(papers),
            TreeSeed.of("run", 1, "q", g));
        assertEquals(NodeStatus.FINAL, tree.root().status(), tree.root().turns().toString());
        String code = tree.root().turns().get(0).response();
        assertTrue(code.startsWith("```repl\nquestion = \"" + QUESTION + "\"\n"), code);
        codes.add(code);
        first.add(code);
      }
      assertTrue(codes.size() > 1, "samples of one query draw different choices");
      TreeRunner.TreeResult again = runner(sandbox, false).run("v", QUESTION, new RlmContext.Papers(papers),
          TreeSeed.of("run", 1, "q", 0));
      assertEquals(first.get(0), again.root().turns().get(0).response(), "one seed writes one program");
    }
  }

  @Test
  void aQuestionAboutAPartOfThePaperReadsThePassagesUnderItsHeading() throws Exception {
    String closing = "The package offers fast exact tests for every design we tried, and its results match\n"
        + "the published tables to the last digit in all of the examples that we reran here.";
    // Filler first, so that the conclusion's words do not also win the word ranking.
    String text = paper("Exact Tests in Practice", null, 4) + "R> summary(fit)\n5. Conclusions\n" + closing + "\n"
        + "References\nA. Author. Some book. 2001.\n";
    String question = "In its closing remarks, what does \"Exact Tests in Practice\" claim to have shown?";
    try (InProcessSandbox sandbox = new InProcessSandbox(SandboxLimits.defaults())) {
      for (int g = 0; g < 4; g++) {
        TreeRunner.TreeResult tree = runner(sandbox, true).run("c" + g, question, new RlmContext.Single(text),
            TreeSeed.of("run", 1, "q", g));
        assertEquals(NodeStatus.FINAL, tree.root().status(), tree.root().turns().toString());
        String code = tree.root().turns().get(0).response();
        assertTrue(code.contains("cues = (\"conclusion\", \"summary\")"), "the heading words are in the code: " + code);
        List<String> spans = List.of(new ObjectMapper().readValue(tree.root().finalAnswerJson(), String[].class));
        assertTrue(spans.get(0).startsWith("The package offers fast exact tests"), "the passage under the heading comes first: " + spans);
        assertTrue(spans.stream().allMatch(text::contains), "verbatim: " + spans);
      }
    }
  }

  @Test
  void theWordsOfAQuotedTitleDoNotRankThePassages() throws Exception {
    String title = "Subword Units and Byte Pair Encoding for Neural Translation of Rarest Vocabulary";
    // A body paragraph full of the title's words (as a summary would be), after the answer.
    String text = paper(title, ANSWER, 4)
        + "Neural translation of rarest vocabulary is hard; subword units from byte pair encoding make the rarest\n"
        + "vocabulary open to neural translation systems. We study subword units and byte pair encoding for the\n"
        + "neural translation of rarest vocabulary: subword units from encoding help.\n";
    String question = "In the paper \"" + title + "\", which training corpus do the translation systems train on?";
    for (List<String> spans : spansOfFourSeeds(question, text)) {
      assertTrue(spans.get(0).contains("WMT 2015 English-German"), "the answering passage ranks first, not the abstract: " + spans);
    }
  }

  /**
   * A question's frame ("what do they use", "in this paper") says nothing about where the answer
   * is; a paragraph that happens to repeat those words must not outrank the one holding the
   * question's own word.
   */
  @Test
  void theQuestionsFrameWordsDoNotRankThePassages() throws Exception {
    String text = paper("A Study of Parsing", "Our parser is trained on the Penn Treebank, sections 2 to 21.", 4)
        + "What they used in this paper, and what they used there, is what other authors have used with\n"
        + "this paper too: what they used is what this paper used, as other papers have done with theirs.\n"
        + "That is all.\n";
    String question = "What treebank do they use in this paper?";
    for (List<String> spans : spansOfFourSeeds(question, text)) {
      assertTrue(spans.get(0).contains("Penn Treebank"), "the treebank passage ranks first: " + spans);
    }
  }

  /** The submitted spans of four single-paper trees (seeds 0-3, question bound), each of which must end final. */
  private static List<List<String>> spansOfFourSeeds(String question, String text) throws Exception {
    List<List<String>> out = new ArrayList<>();
    try (InProcessSandbox sandbox = new InProcessSandbox(SandboxLimits.defaults())) {
      for (int g = 0; g < 4; g++) {
        TreeRunner.TreeResult tree = runner(sandbox, true).run("t" + g, question, new RlmContext.Single(text),
            TreeSeed.of("run", 1, "q", g));
        assertEquals(NodeStatus.FINAL, tree.root().status(), tree.root().turns().toString());
        out.add(List.of(new ObjectMapper().readValue(tree.root().finalAnswerJson(), String[].class)));
      }
    }
    return out;
  }

  @Test
  void thereIsNoThirdTurn() {
    PassageExpert expert = new PassageExpert(new PassageExpert.Settings(4, true, 17));
    assertThrows(Policy.PolicyException.class,
        () -> expert.generate(new PolicyCall(NodePath.ROOT, 2, List.of(), QUESTION, true)));
  }
}
