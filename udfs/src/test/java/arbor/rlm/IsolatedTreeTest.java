package arbor.rlm;

import arbor.conf.PromptStrategy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.rlm.policy.ScriptedPolicy;
import arbor.rlm.policy.ReplayPolicy;
import arbor.rlm.sandbox.SandboxLimits;
import arbor.rlm.sandbox.WorkerPool;
import arbor.rlm.sandbox.WorkerPoolConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A whole tree through the worker processes: children are spawned from a callback that crossed the process boundary. */
class IsolatedTreeTest {
  @Test
  void aTreeRunsWithEveryReplInAWorkerProcess() {
    Path repo = Path.of(System.getProperty("arbor.repo", ".."));
    WorkerPoolConfig config = new WorkerPoolConfig(1, 16, 384, List.of("-XX:TieredStopAtLevel=1"),
        WorkerPoolConfig.defaults().resourceCache(), Duration.ofSeconds(120), repo.resolve("udfs/target/sandbox-logs"), 1);
    Map<String, String> papers = new LinkedHashMap<>();
    papers.put("p1", "Paper One\nAbstract\nWe report an accuracy of 91.2 per-\ncent on the test set.");
    papers.put("p2", "Paper Two\nAbstract\nNothing relevant.");
    try (WorkerPool pool = new WorkerPool(config, SandboxLimits.defaults())) {
      TreeRunner runner = new TreeRunner(pool, new ReplayPolicy(Map.of(
          "root", List.of("```repl\nanswers = rlm_query_batched(['accuracy?', 'accuracy?'], [context['p1'], context['p2']])\n"
              + "evidence = [s for a in answers for s in a]\n```", "FINAL_VAR(evidence)"),
          "root.0", List.of("```repl\nhits = search(context, 'accuracy of 91.2 percent', 20)\n"
              + "ev = [extract_section(hits[0], 'we report', 'test set.')]\n```", "```repl\nFINAL_VAR('ev')\n```"),
          "root.1", List.of("```repl\nFINAL([])\n```"))),
          Prompts.load(repo.resolve("conf/prompts"), PromptStrategy.FULL), RlmLimits.defaults());
      TreeRunner.TreeResult tree = runner.run("iso", "What accuracy?", new RlmContext.Papers(papers));
      assertEquals(NodeStatus.FINAL, tree.root().status());
      assertEquals("[\"We report an accuracy of 91.2 per-\\ncent on the test set.\"]", tree.root().finalAnswerJson());
      assertEquals(3, tree.nodes().size());
    }
  }

  static WorkerPoolConfig onePool(int sessions) {
    return new WorkerPoolConfig(1, sessions, 384, List.of("-XX:TieredStopAtLevel=1"),
        WorkerPoolConfig.defaults().resourceCache(), Duration.ofSeconds(120), REPO.resolve("udfs/target/sandbox-logs"), 1);
  }

  static final Path REPO = Path.of(System.getProperty("arbor.repo", ".."));
  static final Prompts PROMPTS = Prompts.load(REPO.resolve("conf/prompts"), PromptStrategy.FULL);

  @Test
  void aNodeThatCannotOpenAReplIsAnInfrastructureFailureNotThePolicys() {
    WorkerPool pool = new WorkerPool(onePool(1), SandboxLimits.defaults());
    pool.close();
    TreeRunner runner = new TreeRunner(pool, new ReplayPolicy(Map.of("root", List.of("FINAL('never')"))),
        PROMPTS, RlmLimits.defaults());
    TreeRunner.TreeResult tree = runner.run("closed", "q", new RlmContext.Single("text"));
    assertEquals(NodeStatus.SANDBOX_LOST, tree.root().status());
    assertTrue(tree.root().turns().isEmpty());
  }

  @Test
  void aParentWaitingForItsChildrenNeverKeepsThemFromARepl() {
    // One REPL slot in all: the root holds it while it waits, unless it lends it to its children.
    WorkerPoolConfig one = onePool(1).withStartTimeout(Duration.ofSeconds(60));
    try (WorkerPool pool = new WorkerPool(one, SandboxLimits.defaults())) {
      TreeRunner runner = new TreeRunner(pool, new ReplayPolicy(Map.of(
          "root", List.of("```repl\nFINAL(rlm_query_batched(['a', 'b', 'c'], ['x', 'y', 'z']))\n```"),
          "root.0", List.of("FINAL('A')"), "root.1", List.of("FINAL('B')"), "root.2", List.of("FINAL('C')"))),
          PROMPTS, RlmLimits.defaults());
      TreeRunner.TreeResult tree = runner.run("lend", "q", new RlmContext.Single("text"));
      assertEquals("[\"A\",\"B\",\"C\"]", tree.root().finalAnswerJson(), () -> TreeJson.write(tree));
    }
  }

  @Test
  void aRootThatLosesItsReplWhileWaitingStopsItsChildAndTheTreeReturnsComplete() {
    WorkerPoolConfig noRestore = onePool(16).withRestoreMaxActive(Duration.ZERO);
    try (WorkerPool pool = new WorkerPool(noRestore, SandboxLimits.defaults())) {
      ScriptedPolicy policy = new ScriptedPolicy(call -> {
        if (call.node().depth() == 0) {
          return "```repl\nr = rlm_query('slow', 'x')\n```";
        }
        try {
          Thread.sleep(60_000); // a child that would outlive its parent, were it not stopped
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return "FINAL('late')";
      });
      TreeRunner.TreeListener killOnChild = new TreeRunner.TreeListener() {
        @Override
        public void nodeStarted(String nodeId, int depth, String prompt) {
          if (depth == 1) {
            pool.workerPids().forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
          }
        }

        @Override
        public void turnEnded(String nodeId, Turn turn) {}

        @Override
        public void nodeEnded(NodeRecord node) {}
      };
      long t0 = System.nanoTime();
      TreeRunner.TreeResult tree = new TreeRunner(pool, policy, PROMPTS, RlmLimits.defaults(), killOnChild)
          .run("lost", "q", new RlmContext.Single("text"));
      long seconds = (System.nanoTime() - t0) / 1_000_000_000;
      assertEquals(List.of("lost:root", "lost:root.0"), tree.nodes().stream().map(NodeRecord::nodeId).toList());
      assertEquals(NodeStatus.SANDBOX_LOST, tree.root().status());
      assertEquals(NodeStatus.CANCELLED, tree.nodes().get(1).status());
      assertTrue(seconds < 50, "took " + seconds + " s: the child was not stopped with its parent");
    }
  }
}
