package arbor.rlm;

import arbor.conf.OnMaxTurns;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.rlm.policy.Generation;
import arbor.rlm.policy.NodePath;
import arbor.rlm.policy.Policy;
import arbor.rlm.policy.PolicyCall;
import arbor.rlm.policy.ScriptedPolicy;
import arbor.rlm.sandbox.InProcessSandbox;
import arbor.rlm.sandbox.SandboxLimits;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A tree is complete when it returns, and its budgets hold inside a turn: plain completions count
 * against them and stop with their node.
 */
class TreeBudgetTest {
  static InProcessSandbox sandbox;

  @BeforeAll
  static void start() {
    sandbox = new InProcessSandbox(new SandboxLimits(Duration.ofSeconds(20), Duration.ofSeconds(2), 20_000));
    new TreeRunner(sandbox, new ScriptedPolicy(c -> "FINAL('warm')"), TreeRunnerTest.PROMPTS, RlmLimits.defaults())
        .run("warm", "q", TreeRunnerTest.PAPERS);
  }

  @AfterAll
  static void stop() {
    sandbox.close();
  }

  static RlmLimits limits(long tokens, Duration wall) {
    return new RlmLimits(6, OnMaxTurns.STOP, 20_000, 1, 4, 64, tokens, wall);
  }

  /** Counts the nodes that started and ended, as the listener hears them. */
  static final class Census implements TreeRunner.TreeListener {
    final AtomicInteger started = new AtomicInteger();
    final AtomicInteger ended = new AtomicInteger();

    @Override
    public void nodeStarted(String nodeId, int depth, String prompt) {
      started.incrementAndGet();
    }

    @Override
    public void turnEnded(String nodeId, Turn turn) {}

    @Override
    public void nodeEnded(NodeRecord node) {
      ended.incrementAndGet();
    }
  }

  static void sleepThroughInterrupts(long millis) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    boolean interrupted = false;
    while (System.nanoTime() < end) {
      try {
        Thread.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void aTreeStoppedByItsBudgetReturnsOnlyWhenEveryNodeItStartedHasEndedAndIsRecorded() {
    // The child's policy takes longer than the tree may run and does not notice the stop at once.
    ScriptedPolicy slowChild = new ScriptedPolicy(call -> {
      if (call.node().depth() == 0) {
        return "```repl\nr = rlm_query('slow', 'x')\n```";
      }
      sleepThroughInterrupts(9_000);
      return "```repl\nFINAL('late')\n```";
    });
    Census census = new Census();
    TreeRunner runner = new TreeRunner(sandbox, slowChild, TreeRunnerTest.PROMPTS,
        limits(200_000, Duration.ofSeconds(5)), census);
    TreeRunner.TreeResult tree = runner.run("t", "q", TreeRunnerTest.PAPERS);
    assertEquals(census.started.get(), census.ended.get(), "a node was still running when the tree returned");
    assertEquals(List.of("t:root", "t:root.0"), tree.nodes().stream().map(NodeRecord::nodeId).toList(),
        () -> TreeJson.write(tree));
    assertEquals(NodeStatus.BUDGET, tree.root().status());
    assertEquals(NodeStatus.CANCELLED, tree.nodes().get(1).status());
  }

  @Test
  void anOutstandingLlmQueryIsCancelledWithItsNode() throws InterruptedException {
    CountDownLatch interrupted = new CountDownLatch(1);
    ScriptedPolicy hanging = new ScriptedPolicy(call -> "```repl\nx = llm_query('hang')\n```", (node, prompt) -> {
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        interrupted.countDown();
      }
      return "too late";
    });
    long t0 = System.nanoTime();
    TreeRunner.TreeResult tree = new TreeRunner(sandbox, hanging, TreeRunnerTest.PROMPTS,
        limits(200_000, Duration.ofSeconds(5))).run("t", "q", TreeRunnerTest.PAPERS);
    assertEquals(NodeStatus.BUDGET, tree.root().status());
    assertTrue(interrupted.await(3, TimeUnit.SECONDS), "the completion kept running after its node ended");
    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20), "the tree waited for the completion");
  }

  @Test
  void llmQueriesCountAgainstTheTreesTokenBudget() {
    AtomicInteger completions = new AtomicInteger();
    String loop = "```repl\nout = []\nfor i in range(20):\n  try:\n    out.append(len(llm_query('q')))\n"
        + "  except RuntimeError as e:\n    out.append(str(e))\nprint(out)\n```";
    ScriptedPolicy chatty = new ScriptedPolicy(call -> call.turn() == 0 ? loop : "FINAL('done')", (node, prompt) -> {
      completions.incrementAndGet();
      return "w".repeat(200); // about 50 tokens
    });
    TreeRunner.TreeResult tree = new TreeRunner(sandbox, chatty, TreeRunnerTest.PROMPTS,
        limits(300, Duration.ofMinutes(1))).run("t", "q", TreeRunnerTest.PAPERS);
    assertTrue(completions.get() <= 6, completions.get() + " completions on a budget of 300 tokens");
    String observation = tree.root().turns().getFirst().observation();
    assertTrue(observation.contains("budget of 300 generated tokens is spent"), observation);
    assertEquals(NodeStatus.BUDGET, tree.root().status());
  }

  @Test
  void aNodeSendsNoMoreLlmQueryPromptsThanItsCap() {
    AtomicInteger completions = new AtomicInteger();
    String code = "```repl\nfirst = llm_query_batched(['a', 'b'])\nout = []\nfor i in range(5):\n  try:\n"
        + "    out.append(llm_query('q'))\n  except RuntimeError as e:\n    out.append(str(e))\nprint(out)\n```";
    ScriptedPolicy many = new ScriptedPolicy(call -> call.turn() == 0 ? code : "FINAL('done')", (node, prompt) -> {
      completions.incrementAndGet();
      return "ok";
    });
    TreeRunner.TreeResult tree = new TreeRunner(sandbox, many, TreeRunnerTest.PROMPTS,
        limits(200_000, Duration.ofMinutes(1)).withMaxLlmCallsPerNode(4)).run("t", "q", TreeRunnerTest.PAPERS);
    assertEquals(4, completions.get());
    String observation = tree.root().turns().getFirst().observation();
    assertTrue(observation.contains("['ok', 'ok', \"llm_query refused: 1 more prompt(s) would pass this node's cap of 4"),
        observation);
  }

  @Test
  void whatIsLeftOfTheTokenBudgetBoundsEveryGeneration() {
    Map<String, Integer> bounds = new ConcurrentHashMap<>();
    List<Integer> llmBounds = new CopyOnWriteArrayList<>();
    String turn0 = "```repl\nx = llm_query_batched(['a', 'b'])\n```\n" + "w".repeat(400); // about 110 tokens
    Function<PolicyCall, String> script = call -> call.turn() == 0 ? turn0 : "FINAL('done')";
    Policy recording = new Policy() {
      @Override
      public Generation generate(PolicyCall call) {
        bounds.put("turn" + call.turn(), call.maxNewTokens());
        return Generation.ofText(script.apply(call));
      }

      @Override
      public String complete(NodePath node, String prompt) {
        throw new AssertionError("the bounded form must be called");
      }

      @Override
      public Generation complete(NodePath node, String prompt, long seed, int maxNewTokens) {
        llmBounds.add(maxNewTokens);
        return Generation.ofText("w".repeat(40)); // 10 tokens
      }
    };
    TreeRunner.TreeResult tree = new TreeRunner(sandbox, recording, TreeRunnerTest.PROMPTS,
        limits(1_000, Duration.ofMinutes(1))).run("t", "q", TreeRunnerTest.PAPERS);
    assertEquals(NodeStatus.FINAL, tree.root().status());
    int first = Generation.ofText(turn0).tokenCount();
    assertEquals(1_000, bounds.get("turn0"));
    // The two prompts of one batch share what is left, so the batch cannot pass the budget.
    assertEquals(List.of((1_000 - first) / 2, (1_000 - first) / 2), llmBounds);
    assertEquals(1_000 - first - 20, bounds.get("turn1"));
  }
}
