package arbor.rlm.policy;

import arbor.conf.PromptStrategy;
import arbor.policy.files.ChatMessage;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import arbor.conf.DjlPolicySettings;
import arbor.policy.files.TensorDtype;
import arbor.policy.generate.ChatGenerator;
import arbor.policy.generate.GenerationEngine;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.PolicyModel;
import arbor.policy.model.TinyModels;
import arbor.rlm.NodeRecord;
import arbor.rlm.NodeStatus;
import arbor.rlm.Prompts;
import arbor.rlm.RlmContext;
import arbor.rlm.RlmLimits;
import arbor.rlm.TreeRunner;
import arbor.rlm.Turn;
import arbor.rlm.policy.Policy.PolicyException;
import arbor.rlm.sandbox.InProcessSandbox;
import arbor.rlm.sandbox.SandboxLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The djl policy driving real RLM trees with a tiny random model. */
class DjlPolicyTest {
  static final Prompts PROMPTS = Prompts.load(
      Path.of(System.getProperty("arbor.repo", ".."), "conf", "prompts"), PromptStrategy.REDUCED);
  static final RlmContext PAPERS = new RlmContext.Papers(Map.of(
      "p1", "Paper One\nAbstract\nAlpha result.", "p2", "Paper Two\nAbstract\nBeta result."));
  static final DjlPolicySettings.Sampling SAMPLING = new DjlPolicySettings.Sampling(1.0, 1.0, 0, 24);

  @TempDir static Path dir;
  static PolicyModel model;
  static GenerationEngine engine;
  static InProcessSandbox sandbox;

  @BeforeAll
  static void start() throws Exception {
    // A 261-token byte-level vocabulary: random bytes, many of them invalid UTF-8 when decoded.
    TinyModels.write(ModelConfig.qwen3(300, 32, 64, 2, 4, 2, 8, true), 7,
        new TinyModels.TokenizerSource.ByteLevel(), TensorDtype.F32, dir);
    model = HfModelFolder.load(dir, Device.cpu());
    engine = new GenerationEngine(model.model(), GenerationEngine.Options.defaults());
    sandbox = new InProcessSandbox(new SandboxLimits(Duration.ofSeconds(20), Duration.ofSeconds(2), 20_000));
  }

  @AfterAll
  static void stop() {
    sandbox.close();
    engine.close();
    model.close();
  }

  static DjlPolicy policy(DjlPolicySettings.Sampling sampling) {
    return new DjlPolicy(new ChatGenerator(model, engine), sampling, 42);
  }

  @Test
  void everyTurnOfARealTreeRecordsTheTemplatesTokensAndItsOwnSample() {
    RlmLimits limits = RlmLimits.defaults().withMaxTurns(3);
    TreeRunner.TreeResult tree = new TreeRunner(sandbox, policy(SAMPLING), PROMPTS, limits)
        .run("djl", "Which results?", PAPERS);

    NodeRecord root = tree.root();
    // A random model writes no code and no FINAL: it uses its turns.
    assertTrue(Set.of(NodeStatus.MAX_TURNS, NodeStatus.FINAL).contains(root.status()),
        "status " + root.status());
    assertEquals(3, root.turns().size());
    for (Turn turn : root.turns()) {
      // Exactly what the model was conditioned on: the chat template's tokens of this turn's
      // conversation, ending with the generation prompt.
      int[] expected = model.tokenizer().encode(model.chat().render(turn.prompt(), true));
      assertArrayEquals(expected, turn.promptTokenIds(), "prompt ids of turn " + turn.index());
      assertNotNull(turn.responseTokenIds());
      assertTrue(turn.responseTokenIds().length >= 1 && turn.responseTokenIds().length <= 24);
      assertEquals(turn.responseTokenIds().length, turn.logprobs().length);
      for (float lp : turn.logprobs()) {
        assertTrue(lp <= 0 && Float.isFinite(lp), "log-probability " + lp);
      }
      for (int id : turn.responseTokenIds()) {
        assertTrue(id >= 0 && id < model.config().vocabSize());
      }
    }
    // The conversation grows: turn 1 saw turn 0's response as an assistant message.
    assertEquals(root.turns().get(0).response(),
        root.turns().get(1).prompt().get(2).content());
    assertEquals(ChatMessage.Role.ASSISTANT, root.turns().get(1).prompt().get(2).role());
    assertEquals(root.turns().stream().mapToLong(t -> t.responseTokenIds().length).sum(),
        root.genTokens());
  }

  @Test
  void aTurnIsSampledWithItsCallsSeedSoOneSeedReproducesItAndAnotherDiffers() throws Exception {
    DjlPolicy policy = policy(SAMPLING);
    List<ChatMessage> messages = List.of(ChatMessage.system("s"), ChatMessage.user("u"));
    Generation a = policy.generate(new PolicyCall(NodePath.ROOT, 0, messages, "u", true, 11));
    Generation again = policy.generate(new PolicyCall(NodePath.ROOT, 0, messages, "u", true, 11));
    Generation b = policy.generate(new PolicyCall(NodePath.ROOT, 0, messages, "u", true, 12));
    assertArrayEquals(a.tokenIds(), again.tokenIds());
    assertArrayEquals(a.promptTokenIds(), b.promptTokenIds());
    assertFalse(java.util.Arrays.equals(a.tokenIds(), b.tokenIds()),
        "two seeds of one prompt drew the same 24 random tokens");
    assertEquals(new Generation.Sampling(1.0, 1.0, 0), a.sampling());
    // 24 random tokens out of 300: a stop token is possible but the length cut is the rule.
    assertTrue(a.finish() == Generation.Finish.STOP || a.tokenIds().length == 24 && a.finish() == Generation.Finish.LENGTH,
        a.finish() + " after " + a.tokenIds().length + " tokens");
    assertEquals(a.finish() == Generation.Finish.LENGTH, a.truncated());
  }

  @Test
  void treesWithTheSameSeedAreTheSameTreeAndTheirTurnsRecordTheirSeeds() {
    RlmLimits limits = RlmLimits.defaults().withMaxTurns(2);
    TreeRunner runner = new TreeRunner(sandbox, policy(SAMPLING), PROMPTS, limits);
    long seed = arbor.rlm.TreeSeed.of("run", 3, "q1", 0);
    TreeRunner.TreeResult one = runner.run("a", "Which results?", PAPERS, seed);
    TreeRunner.TreeResult same = runner.run("b", "Which results?", PAPERS, seed);
    TreeRunner.TreeResult other = runner.run("c", "Which results?", PAPERS, arbor.rlm.TreeSeed.of("run", 3, "q1", 1));
    List<String> texts = one.root().turns().stream().map(Turn::response).toList();
    assertEquals(texts, same.root().turns().stream().map(Turn::response).toList());
    assertNotEquals(texts, other.root().turns().stream().map(Turn::response).toList());
    for (Turn t : one.root().turns()) {
      assertEquals(arbor.rlm.TreeSeed.turn(seed, NodePath.ROOT, t.index()), t.seed());
      assertEquals(t.finish() == Generation.Finish.LENGTH, t.responseTokenIds().length == 24
          && !model.stopTokenIds().contains(t.responseTokenIds()[23]));
    }
  }

  @Test
  void llmQueryIsAPlainOneMessageCompletionOfTheSameModel() throws Exception {
    String text = policy(new DjlPolicySettings.Sampling(0, 1.0, 0, 8))
        .complete(NodePath.ROOT.child(1), "Summarise: alpha");
    // Greedy: the same as the model's own greedy turn for the one-message conversation.
    Generation direct = policy(new DjlPolicySettings.Sampling(0, 1.0, 0, 8)).generate(
        new PolicyCall(NodePath.ROOT, 0, List.of(ChatMessage.user("Summarise: alpha")), "", false));
    assertEquals(direct.text(), text);
  }

  @Test
  void aPromptTheModelCannotHoldEndsTheNodeWithPolicyError() {
    // 50,000 new tokens exceed the tiny model's 40,960 positions: refused before generating.
    DjlPolicy policy = policy(new DjlPolicySettings.Sampling(1.0, 1.0, 0, 50_000));
    PolicyException e = assertThrows(PolicyException.class, () -> policy.generate(
        new PolicyCall(NodePath.ROOT, 0, List.of(ChatMessage.user("hi")), "hi", false)));
    assertTrue(e.getMessage().contains("max_position_embeddings"), e.getMessage());
    TreeRunner.TreeResult tree = new TreeRunner(sandbox, policy, PROMPTS, RlmLimits.defaults())
        .run("too-long", "Which results?", PAPERS);
    assertEquals(NodeStatus.POLICY_ERROR, tree.root().status());
  }

  @Test
  void openLoadsAModelFolderAndRefusesAFolderWithoutOne() throws Exception {
    DjlPolicySettings settings = new DjlPolicySettings("", 0, 3,
        new DjlPolicySettings.Engine(4, 64, 64, 16, true), new DjlPolicySettings.Sampling(1.0, 0.9, 50, 4),
        new DjlPolicySettings.Cache("", 50));
    try (DjlPolicy own = DjlPolicy.open(dir, settings)) {
      Generation g = own.generate(new PolicyCall(NodePath.ROOT, 0,
          List.of(ChatMessage.user("hi")), "hi", false));
      assertEquals(g.tokenIds().length, g.logprobs().length);
    }
    java.io.IOException e = assertThrows(java.io.IOException.class,
        () -> DjlPolicy.open(dir.resolve("missing"), settings));
    assertTrue(e.getMessage().contains("policy.djl.model_dir"), e.getMessage());
    assertNotEquals(0, settings.engine().maxBatch());
  }

  @Test
  void llmQueryFromTheReplReachesTheModel() throws Exception {
    // The code is replayed (a random model writes none); its llm_query is answered by the model.
    DjlPolicy model = policy(new DjlPolicySettings.Sampling(0, 1.0, 0, 6));
    ReplayPolicy code = new ReplayPolicy(Map.of("root",
        List.of("```repl\nanswer = llm_query('Summarise: alpha')\nFINAL([answer])\n```")));
    Policy mixed = new Policy() {
      @Override
      public Generation generate(PolicyCall call) throws PolicyException {
        return code.generate(call);
      }

      @Override
      public String complete(NodePath node, String prompt) throws PolicyException {
        return model.complete(node, prompt);
      }
    };
    TreeRunner.TreeResult tree = new TreeRunner(sandbox, mixed, PROMPTS, RlmLimits.defaults())
        .run("llm", "Which results?", PAPERS);
    assertEquals(NodeStatus.FINAL, tree.root().status());
    String expected = model.complete(NodePath.ROOT, "Summarise: alpha");
    assertEquals(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(
        List.of(expected)), tree.root().finalAnswerJson());
  }

  @Test
  void aNodeStoppedWhileGeneratingGetsAPolicyErrorAndTheEngineStops() throws Exception {
    // Greedy: this random model falls into a loop that never emits a stop token, so without
    // cancellation the engine would decode all 30,000 tokens for nobody.
    DjlPolicy policy = policy(new DjlPolicySettings.Sampling(0, 1.0, 0, 30_000));
    PolicyCall call = new PolicyCall(NodePath.ROOT, 0, List.of(ChatMessage.user("go on")), "", false);
    java.util.concurrent.atomic.AtomicReference<Exception> failure =
        new java.util.concurrent.atomic.AtomicReference<>();
    long before = engine.stats().decodeTokens();
    Thread node = Thread.ofVirtual().start(() -> {
      try {
        policy.generate(call);
      } catch (PolicyException e) {
        failure.set(e);
      }
    });
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (engine.stats().decodeTokens() - before < 20 && System.nanoTime() < deadline) {
      Thread.sleep(2);
    }
    assertTrue(node.isAlive(), "the greedy turn stopped by itself; pick another prompt");
    node.interrupt();  // what the tree runner does to a stopped node
    node.join(5_000);
    assertTrue(failure.get() != null && failure.get().getMessage().contains("interrupted"),
        String.valueOf(failure.get()));
    Thread.sleep(200);
    long steps = engine.stats().decodeSteps();
    Thread.sleep(300);
    assertEquals(steps, engine.stats().decodeSteps(), "the engine kept generating for nobody");
  }
}
