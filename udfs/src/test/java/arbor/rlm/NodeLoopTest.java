package arbor.rlm;

import arbor.conf.OnMaxTurns;
import arbor.conf.PromptStrategy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.policy.files.ChatMessage;
import arbor.rlm.policy.NodePath;
import arbor.rlm.policy.ReplayPolicy;
import arbor.rlm.sandbox.HostBridge;
import arbor.rlm.sandbox.InProcessSandbox;
import arbor.rlm.sandbox.SandboxLimits;
import arbor.rlm.sandbox.SandboxSession;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The node loop of method.md sections 2 and 4, driven by a replay policy. */
class NodeLoopTest {
  static final Path PROMPTS = Path.of(System.getProperty("arbor.repo", ".."), "conf", "prompts");
  static final RlmContext PAPERS = new RlmContext.Papers(Map.of(
      "p1", "Sparse Attention\nAbstract\nWe cut pa-\nrameters by half.\n\nBody text."));
  static InProcessSandbox sandbox;

  @BeforeAll
  static void start() {
    sandbox = new InProcessSandbox(new SandboxLimits(Duration.ofSeconds(5), Duration.ofSeconds(2), 20_000));
  }

  @AfterAll
  static void stop() {
    sandbox.close();
  }

  static NodeLoop.Outcome run(Map<String, List<String>> script, RlmLimits limits) {
    return run(script, limits, NodeGuard.NONE);
  }

  static NodeLoop.Outcome run(Map<String, List<String>> script, RlmLimits limits, NodeGuard guard) {
    NodeLoop loop = new NodeLoop(new ReplayPolicy(script), Prompts.load(PROMPTS, PromptStrategy.FULL), limits);
    try (SandboxSession s = sandbox.open(PAPERS.toJson(), HostBridge.NONE)) {
      return loop.run(new NodeLoop.NodeSpec(NodePath.ROOT, "What is cut?", PAPERS, Prompts.Role.ROOT_MULTI), s,
          guard);
    }
  }

  @Test
  void aNodeThatSubmitsInCodeEndsFinalWithItsAnswerAsJson() {
    NodeLoop.Outcome o = run(Map.of("root", List.of(
        "Look first.\n```repl\nhits = search(context, 'parameters', 60)\n```",
        "```repl\nevidence = [extract_section(hits[0], 'we cut', 'by half.')]\nprint(evidence)\n```",
        "```repl\nFINAL_VAR('evidence')\n```")), RlmLimits.defaults());
    assertEquals(NodeStatus.FINAL, o.status());
    assertEquals("[\"We cut pa-\\nrameters by half.\"]", o.finalAnswerJson());
    assertEquals(3, o.turns().size());
    assertTrue(o.turns().get(1).observation().contains("['We cut pa-\\nrameters by half.']"));
    assertTrue(o.turns().get(1).observation().endsWith("REPL variables: [hits, evidence]\n"),
        o.turns().get(1).observation());
  }

  @Test
  void everyTurnRecordsTheExactConversationWithOnlyTheLatestInstruction() {
    NodeLoop.Outcome o = run(Map.of("root", List.of("```repl\nx = 1\n```", "```repl\nFINAL(x)\n```")),
        RlmLimits.defaults());
    List<ChatMessage> first = o.turns().get(0).prompt();
    List<ChatMessage> second = o.turns().get(1).prompt();
    assertEquals(3, first.size());
    assertEquals(ChatMessage.Role.SYSTEM, first.get(0).role());
    assertTrue(first.get(1).content().startsWith("Your context is a dict of 1 papers"), first.get(1).content());
    assertTrue(first.get(2).content().contains("Inspect the context first"));
    assertTrue(first.get(2).content().contains("What is cut?"));
    // [system, metadata, assistant, observation, instruction]: the turn-0 instruction is gone.
    assertEquals(5, second.size());
    assertEquals("```repl\nx = 1\n```", second.get(2).content());
    assertEquals(ChatMessage.Role.USER, second.get(3).role());
    assertTrue(second.get(4).content().contains("What is cut?"));
    assertTrue(second.stream().noneMatch(m -> m.content().contains("Inspect the context first")));
    assertEquals("1", o.finalAnswerJson());
  }

  @Test
  void anAnswerThatArrivesAfterTheNodeWasStoppedDoesNotCount() {
    // The stop lands while the cell runs (as when the tree's wall time cancels the children a
    // rlm_query_batched waits on, and the cell then submits their error strings).
    NodeGuard stoppedDuringTheCell = new NodeGuard() {
      @Override
      public NodeStatus stopReason() {
        return null;
      }

      @Override
      public NodeStatus stoppedBy() {
        return NodeStatus.BUDGET;
      }

      @Override
      public void chargeTokens(int tokens) {}
    };
    NodeLoop.Outcome o = run(Map.of("root", List.of("```repl\nFINAL(['late'])\n```")), RlmLimits.defaults(),
        stoppedDuringTheCell);
    assertEquals(NodeStatus.BUDGET, o.status());
    assertNull(o.finalAnswerJson());
    assertEquals(1, o.turns().size());
  }

  @Test
  void finalAsTextOutsideCodeIsAccepted() {
    NodeLoop.Outcome o = run(Map.of("root", List.of(
        "```repl\nanswer = ['a', 'b']\n```", "The answer is ready.\nFINAL_VAR(answer)")), RlmLimits.defaults());
    assertEquals(NodeStatus.FINAL, o.status());
    assertEquals("[\"a\",\"b\"]", o.finalAnswerJson());
  }

  @Test
  void executionStopsAtTheFirstBlockThatSubmits() {
    NodeLoop.Outcome o = run(Map.of("root", List.of(
        "```repl\nFINAL(['x'])\n```\n```repl\nprint('never')\n```")), RlmLimits.defaults());
    assertEquals(List.of("FINAL(['x'])"), o.turns().getFirst().code());
    assertTrue(!o.turns().getFirst().observation().contains("never"));
  }

  @Test
  void aResponseWithoutCodeOrFinalGetsTheFenceConvention() {
    NodeLoop.Outcome o = run(Map.of("root", List.of("I think the answer is obvious.", "```repl\nFINAL([])\n```")),
        RlmLimits.defaults());
    assertEquals(Observation.NO_CODE, o.turns().getFirst().observation());
    assertEquals("[]", o.finalAnswerJson());
  }

  @Test
  void theTurnLimitEndsTheNodeWithMaxTurnsAndNoAnswer() {
    NodeLoop.Outcome o = run(Map.of("root", List.of("```repl\na = 1\n```", "```repl\nb = 2\n```")),
        RlmLimits.defaults().withMaxTurns(2));
    assertEquals(NodeStatus.MAX_TURNS, o.status());
    assertNull(o.finalAnswerJson());
    assertEquals(2, o.turns().size());
  }

  @Test
  void onMaxTurnsAskGivesOneExtraPlainTurn() {
    NodeLoop.Outcome o = run(Map.of("root", List.of("```repl\nevidence = ['e']\n```",
        "```repl\nprint('this code is not run')\n```\nFINAL_VAR(evidence)")),
        RlmLimits.defaults().withMaxTurns(1).withOnMaxTurns(OnMaxTurns.ASK));
    assertEquals(NodeStatus.FINAL, o.status());
    assertEquals("[\"e\"]", o.finalAnswerJson());
    assertEquals(2, o.turns().size());
    assertTrue(o.turns().get(1).prompt().getLast().content().contains("no turns left"));
    assertEquals(List.of("FINAL_VAR('evidence')"), o.turns().get(1).code());
  }

  @Test
  void aPolicyWithNothingToSayEndsThePolicyError() {
    NodeLoop.Outcome o = run(Map.of("root", List.of("```repl\nx = 1\n```")), RlmLimits.defaults());
    assertEquals(NodeStatus.POLICY_ERROR, o.status());
    assertEquals(1, o.turns().size());
  }

  @Test
  void errorsAreObservationsAndMarkTheTurn() {
    NodeLoop.Outcome o = run(Map.of("root", List.of("```repl\nkept = 1\n1/0\n```", "```repl\nFINAL(kept)\n```")),
        RlmLimits.defaults());
    Turn first = o.turns().getFirst();
    assertTrue(first.replError());
    assertTrue(first.observation().contains("ZeroDivisionError"), first.observation());
    assertEquals("1", o.finalAnswerJson());
  }

  @Test
  void longObservationsAreCutWithAMarker() {
    RlmLimits small = new RlmLimits(6, OnMaxTurns.STOP, 100, 1, 4, 64, 200_000, Duration.ofMinutes(1));
    NodeLoop.Outcome o = run(Map.of("root", List.of("```repl\nprint('z' * 500)\n```", "```repl\nFINAL(1)\n```")), small);
    String obs = o.turns().getFirst().observation();
    assertTrue(obs.startsWith("z".repeat(100) + "\n... [output truncated: "), obs);
    assertTrue(obs.endsWith(" characters cut]"), obs);
  }
}
