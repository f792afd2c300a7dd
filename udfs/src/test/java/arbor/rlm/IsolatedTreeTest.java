package arbor.rlm;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
          Prompts.load(repo.resolve("conf/prompts"), Prompts.Strategy.FULL), RlmLimits.defaults());
      TreeRunner.TreeResult tree = runner.run("iso", "What accuracy?", new RlmContext.Papers(papers));
      assertEquals(NodeStatus.FINAL, tree.root().status());
      assertEquals("[\"We report an accuracy of 91.2 per-\\ncent on the test set.\"]", tree.root().finalAnswerJson());
      assertEquals(3, tree.nodes().size());
    }
  }
}
