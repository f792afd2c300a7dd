package arbor.rlm;

import arbor.conf.OnMaxTurns;
import arbor.conf.PromptStrategy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.policy.files.ChatMessage;
import arbor.rlm.policy.ReplayPolicy;
import arbor.rlm.policy.ScriptedPolicy;
import arbor.rlm.sandbox.InProcessSandbox;
import arbor.rlm.sandbox.SandboxLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Rollout trees: recursion, the caps of method.md section 2, cancellation and the records. */
class TreeRunnerTest {
  static final Prompts PROMPTS = Prompts.load(
      Path.of(System.getProperty("arbor.repo", ".."), "conf", "prompts"), PromptStrategy.FULL);
  static final RlmContext PAPERS = papers();

  static RlmContext papers() {
    Map<String, String> map = new LinkedHashMap<>();
    map.put("p1", "Paper One\nAbstract\nAlpha result.");
    map.put("p2", "Paper Two\nAbstract\nBeta result.");
    return new RlmContext.Papers(map);
  }
  static InProcessSandbox sandbox;

  @BeforeAll
  static void start() {
    sandbox = new InProcessSandbox(new SandboxLimits(Duration.ofSeconds(20), Duration.ofSeconds(2), 20_000));
    // The first GraalPy context of a JVM takes seconds; a test with a short tree budget must not
    // spend it there, whatever order the tests run in.
    run(Map.of("root", List.of("FINAL('warm')")), RlmLimits.defaults());
  }

  @AfterAll
  static void stop() {
    sandbox.close();
  }

  static TreeRunner.TreeResult run(Map<String, List<String>> script, RlmLimits limits) {
    return new TreeRunner(sandbox, new ReplayPolicy(script), PROMPTS, limits).run("t1", "Which results?", PAPERS);
  }

  static NodeRecord node(TreeRunner.TreeResult tree, String path) {
    return tree.nodes().stream().filter(n -> n.nodeId().equals("t1:" + path)).findFirst().orElseThrow();
  }

  @Test
  void aRootDelegatesToConcurrentChildrenAndFlattensTheirAnswers() {
    TreeRunner.TreeResult tree = run(Map.of(
        "root", List.of("```repl\nids = list_papers(context)\n"
            + "answers = rlm_query_batched(['find alpha', 'find beta'], [context[i] for i in ids])\n"
            + "evidence = [s for a in answers for s in a]\nprint(answers)\n```", "FINAL_VAR(evidence)"),
        "root.0", List.of("```repl\nFINAL([context.split(chr(10))[2]])\n```"),
        "root.1", List.of("```repl\nFINAL([context.split(chr(10))[2]])\n```")), RlmLimits.defaults());
    NodeRecord root = tree.root();
    assertEquals(NodeStatus.FINAL, root.status());
    assertEquals("[\"Alpha result.\",\"Beta result.\"]", root.finalAnswerJson());
    assertEquals(2, root.numChildren());
    assertEquals(List.of("t1:root", "t1:root.0", "t1:root.1"), tree.nodes().stream().map(NodeRecord::nodeId).toList());
    NodeRecord second = node(tree, "root.1");
    assertEquals("t1:root", second.parentId());
    assertEquals("t1:root", second.rootId());
    assertEquals(1, second.depth());
    assertEquals(1, second.childIndex());
    assertEquals("find beta", second.prompt());
    assertEquals(-1, root.childIndex());
    // The child got the child system prompt and a str context.
    ChatMessage system = second.turns().getFirst().prompt().getFirst();
    assertEquals(PROMPTS.system(Prompts.Role.CHILD), system.content());
    assertTrue(second.turns().getFirst().prompt().get(1).content().startsWith("Your context is a str"));
  }

  @Test
  void withBindQuestionEachNodesReplHoldsItsOwnPromptAsQuestion() {
    TreeRunner.TreeResult tree = run(Map.of(
        "root", List.of("```repl\nFINAL([question, rlm_query('find alpha', 'x')]"
            + " + rlm_query_batched(['find beta', 'find gamma'], ['y', 'z']))\n```"),
        "root.0", List.of("```repl\nFINAL(question)\n```"),
        "root.1", List.of("```repl\nFINAL(question)\n```"),
        "root.2", List.of("```repl\nFINAL(question)\n```")), RlmLimits.defaults().withBindQuestion(true));
    assertEquals(NodeStatus.FINAL, tree.root().status());
    assertEquals("[\"Which results?\",\"find alpha\",\"find beta\",\"find gamma\"]", tree.root().finalAnswerJson());
    // The published method binds none.
    TreeRunner.TreeResult plain = run(Map.of("root", List.of("```repl\nFINAL('question' in dir())\n```")),
        RlmLimits.defaults());
    assertEquals("false", plain.root().finalAnswerJson());
  }

  @Test
  void aChildWithoutContextGetsTheParentsWholeContext() {
    TreeRunner.TreeResult tree = run(Map.of(
        "root", List.of("```repl\nFINAL(rlm_query('count papers'))\n```"),
        "root.0", List.of("```repl\nFINAL(sorted(context))\n```")), RlmLimits.defaults());
    assertEquals("[\"p1\",\"p2\"]", tree.root().finalAnswerJson());
  }

  @Test
  void atTheDepthLimitRlmQueryDegradesToLlmQuery() {
    TreeRunner.TreeResult tree = run(Map.of(
        "root", List.of("```repl\nFINAL(rlm_query('go deeper', 'text'))\n```"),
        "root.0", List.of("```repl\nFINAL(rlm_query('and deeper', 'text'))\n```"),
        "root.0#llm", List.of("a plain completion")), RlmLimits.defaults());
    assertEquals("\"a plain completion\"", tree.root().finalAnswerJson());
    assertEquals(2, tree.nodes().size(), "no grandchild was created");
  }

  @Test
  void childrenBeyondTheCapGetAnErrorInTheirSlot() {
    TreeRunner.TreeResult tree = run(Map.of(
        "root", List.of("```repl\nr = rlm_query_batched(['a', 'b', 'c', 'd', 'e'], ['x'] * 5)\nFINAL(r)\n```"),
        "root.0", List.of("FINAL(0)"), "root.1", List.of("FINAL(1)"), "root.2", List.of("FINAL(2)"),
        "root.3", List.of("FINAL(3)")), RlmLimits.defaults());
    String answer = tree.root().finalAnswerJson();
    assertTrue(answer.startsWith("[0,1,2,3,\"Error: this node already has 4 children"), answer);
    assertEquals(4, tree.root().numChildren());
  }

  @Test
  void aChildsIndexIsItsPromptsPositionInTheCallEvenWhenPromptsBeforeItAreRefused() {
    // Prompt 0 is refused (not a str) and prompt 2 gets a context of the wrong type; a later
    // rlm_query continues the count: its prompt is the node's fifth.
    TreeRunner.TreeResult tree = run(Map.of(
        "root", List.of("```repl\nr = rlm_query_batched([1, 'b', 'c', 'd'], ['x', 'y', 3, 'z'])\n"
            + "r.append(rlm_query('e', 'w'))\nFINAL(r)\n```"),
        "root.1", List.of("FINAL('b')"), "root.3", List.of("FINAL('d')"), "root.4", List.of("FINAL('e')")),
        RlmLimits.defaults());
    String answer = tree.root().finalAnswerJson();
    assertTrue(answer.startsWith("[\"Error: the prompt must be a str\",\"b\",\"Error: a context must be a str"), answer);
    assertTrue(answer.endsWith(",\"d\",\"e\"]"), answer);
    assertEquals(List.of("t1:root", "t1:root.1", "t1:root.3", "t1:root.4"),
        tree.nodes().stream().map(NodeRecord::nodeId).toList());
    assertEquals(1, node(tree, "root.1").childIndex());
    assertEquals("b", node(tree, "root.1").prompt());
    assertEquals(3, node(tree, "root.3").childIndex());
    assertEquals(4, node(tree, "root.4").childIndex());
    assertEquals(3, tree.root().numChildren());
  }

  @Test
  void theTreeNodeCapIsEnforced() {
    RlmLimits two = new RlmLimits(6, OnMaxTurns.STOP, 20_000, 1, 4, 2, 200_000, Duration.ofMinutes(1));
    TreeRunner.TreeResult tree = run(Map.of(
        "root", List.of("```repl\nFINAL(rlm_query_batched(['a', 'b'], ['x', 'y']))\n```"),
        "root.0", List.of("FINAL('ok')")), two);
    assertEquals("[\"ok\",\"Error: the tree already has 2 nodes, the most it may hold\"]", tree.root().finalAnswerJson());
  }

  @Test
  void aFailedChildIsAnErrorStringInItsSlotAndTheOthersStillAnswer() {
    TreeRunner.TreeResult tree = run(Map.of(
        "root", List.of("```repl\nFINAL(rlm_query_batched(['a', 'b'], ['x', 'y']))\n```"),
        "root.1", List.of("FINAL('fine')")), RlmLimits.defaults());
    assertEquals("[\"Error: the child ended with status policy_error and no answer\",\"fine\"]",
        tree.root().finalAnswerJson());
    assertEquals(NodeStatus.POLICY_ERROR, node(tree, "root.0").status());
  }

  @Test
  void aContextListOfTheWrongLengthIsAnErrorNotATruncation() {
    TreeRunner.TreeResult tree = run(Map.of(
        "root", List.of("```repl\nrlm_query_batched(['a', 'b'], ['x'])\n```", "FINAL('after')")),
        RlmLimits.defaults());
    Turn first = tree.root().turns().getFirst();
    assertTrue(first.observation().contains("context_list has 1 items but prompts has 2"), first.observation());
    assertEquals(1, tree.nodes().size());
  }

  @Test
  void theTreeWallTimeStopsTheRootAndCancelsItsRunningChildren() {
    RlmLimits quick = new RlmLimits(6, OnMaxTurns.STOP, 20_000, 1, 4, 64, 200_000, Duration.ofSeconds(4));
    long t0 = System.nanoTime();
    TreeRunner.TreeResult tree = run(Map.of(
        "root", List.of("```repl\nFINAL(rlm_query_batched(['spin', 'spin'], ['x', 'y']))\n```"),
        "root.0", List.of("```repl\nwhile True:\n  pass\n```"),
        "root.1", List.of("```repl\nwhile True:\n  pass\n```")), quick);
    long seconds = (System.nanoTime() - t0) / 1_000_000_000;
    assertTrue(seconds < 15, "took " + seconds + " s");
    assertEquals(NodeStatus.BUDGET, tree.root().status());
    assertNull(tree.root().finalAnswerJson());
    // Stopped by the root's stop (cancelled) or, on a loaded machine, by noticing the tree's
    // deadline first (budget): either way stopped by the tree's wall time, and recorded.
    assertTrue(java.util.Set.of(NodeStatus.CANCELLED, NodeStatus.BUDGET).contains(node(tree, "root.0").status()));
    assertTrue(java.util.Set.of(NodeStatus.CANCELLED, NodeStatus.BUDGET).contains(node(tree, "root.1").status()));
  }

  @Test
  void theTokenBudgetEndsTheTree() {
    RlmLimits tiny = new RlmLimits(6, OnMaxTurns.STOP, 20_000, 1, 4, 64, 50, Duration.ofMinutes(1));
    String chatty = "```repl\nx = 1\n```\n" + "words ".repeat(100);
    TreeRunner.TreeResult tree = run(Map.of("root", List.of(chatty, chatty, chatty)), tiny);
    assertEquals(NodeStatus.BUDGET, tree.root().status());
    assertEquals(1, tree.root().turns().size());
  }

  @Test
  void concurrentTreesNeverSeeEachOthersNodes() throws Exception {
    // Each child answers with what its own REPL holds; a crossed wire shows as a foreign value.
    ScriptedPolicy echo = new ScriptedPolicy(call -> call.node().depth() == 0
        ? (call.turn() == 0
            ? "```repl\nmine = sorted(context)\nr = rlm_query_batched([k for k in mine], [context[k] for k in mine])\n"
                + "print(r)\n```"
            : "```repl\nFINAL([mine, r])\n```")
        : "```repl\nprint(context)\nFINAL(context)\n```");
    TreeRunner runner = new TreeRunner(sandbox, echo, PROMPTS, RlmLimits.defaults());
    List<Callable<String>> trees = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int id = t;
      Map<String, String> papers = new LinkedHashMap<>();
      for (int p = 0; p < 3; p++) {
        papers.put("t" + id + "p" + p, "text of tree " + id + " paper " + p);
      }
      trees.add(() -> runner.run("tree" + id, "q", new RlmContext.Papers(papers)).root().finalAnswerJson());
    }
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<String>> answers = pool.invokeAll(trees);
      for (int t = 0; t < 8; t++) {
        String expected = "[[\"t%1$dp0\",\"t%1$dp1\",\"t%1$dp2\"],[\"text of tree %1$d paper 0\","
            + "\"text of tree %1$d paper 1\",\"text of tree %1$d paper 2\"]]";
        assertEquals(expected.formatted(t), answers.get(t).get());
      }
    }
  }

  @Test
  void aListenerHearsTheTreeUnfoldAndTheJsonDocumentHoldsIt() throws Exception {
    java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
    TreeRunner runner = new TreeRunner(sandbox, new ReplayPolicy(Map.of(
        "root", List.of("```repl\nr = rlm_query('child prompt', 'ctx')\n```", "FINAL_VAR(r)"),
        "root.0", List.of("```repl\nFINAL(['span'])\n```"))), PROMPTS, RlmLimits.defaults(),
        new TreePrinter(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8)));
    TreeRunner.TreeResult tree = runner.run("t1", "Which results?", PAPERS);
    String text = printed.toString(java.nio.charset.StandardCharsets.UTF_8);
    int rootStart = text.indexOf("== t1:root starts");
    int childStart = text.indexOf("== t1:root.0 starts: child prompt");
    int childEnd = text.indexOf("== t1:root.0 ends: final, answer [\"span\"]");
    int rootEnd = text.indexOf("== t1:root ends: final");
    assertTrue(rootStart >= 0 && rootStart < childStart && childStart < childEnd && childEnd < rootEnd, text);
    assertTrue(text.contains(">>> r = rlm_query('child prompt', 'ctx')"), text);

    com.fasterxml.jackson.databind.JsonNode doc = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(TreeJson.write(tree));
    assertEquals("final", doc.get("status").asText());
    assertEquals("span", doc.get("final_answer").get(0).asText());
    assertEquals(2, doc.get("nodes").size());
    assertEquals("t1:root", doc.get("nodes").get(1).get("parent_id").asText());
    assertEquals(1, doc.get("nodes").get(1).get("turns").size());
  }
}
