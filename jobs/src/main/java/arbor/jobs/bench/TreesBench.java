package arbor.jobs.bench;

import arbor.jobs.Args;
import arbor.rlm.Prompts;
import arbor.rlm.bench.TreeLoadBench;
import arbor.rlm.sandbox.WorkerPool;
import arbor.rlm.sandbox.WorkerPoolConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Queries x samples concurrent trees of the scripted expert through the sandbox worker pool (up to
 * 4 children each): completed trees, timeouts, cross-talk, trees per second, harness time per turn.
 */
final class TreesBench implements Benchmark {
  @Override
  public String summary() {
    return "16 queries x 8 samples of concurrent scripted trees through the worker pool";
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    PrintStream out = ctx.out();
    Args args = Args.parse("bench trees", ctx.args(), Set.of(),
        Set.of("qasper", "queries", "samples", "papers", "workers", "seed"));
    Path qasper = Path.of(args.value("qasper").orElse("../shared/data/qasper-train"));
    int queries = Integer.parseInt(args.value("queries").orElse("16"));
    int samples = Integer.parseInt(args.value("samples").orElse("8"));
    int papers = Integer.parseInt(args.value("papers").orElse("5"));
    int workers = Integer.parseInt(args.value("workers").orElse("2"));
    long seed = Long.parseLong(args.value("seed").orElse("1"));
    var c = ctx.config();
    Prompts prompts = c.rlm().loadPrompts();
    List<TreeLoadBench.Query> qs = TreeLoadBench.queries(qasper, queries, papers, seed);
    WorkerPoolConfig d = c.sandbox().pool();
    int sessions = Math.max(64, queries * samples * 5 / workers + 1);
    WorkerPoolConfig pool = new WorkerPoolConfig(workers, sessions, 2048, d.jvmOptions(), d.resourceCache(),
        d.startTimeout(), d.logDir(), Math.max(1, Runtime.getRuntime().availableProcessors() / workers));
    out.printf("bench trees: %d queries x %d samples, %d papers each, %d workers x %d sessions%n",
        qs.size(), samples, papers, workers, sessions);
    TreeLoadBench.Result r;
    try (WorkerPool sandbox = new WorkerPool(pool, c.repl().limits())) {
      sandbox.warmUp();
      r = TreeLoadBench.run(qs, samples, sandbox, prompts, c.rlm().limits(c.repl()), out);
    }
    out.printf("bench trees: %d/%d completed, %d timeouts, %d cross-talk, %.2f trees/s, %.1f ms harness time per turn"
        + " (%d nodes, %d turns)%n", r.completed(), r.trees(), r.timeouts(), r.crosstalk(), r.treesPerSecond(),
        r.overheadMillisPerTurn(), r.nodes(), r.turns());
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("trees", r.trees());
    figures.put("completed", r.completed());
    figures.put("timeouts", r.timeouts());
    figures.put("crosstalk", r.crosstalk());
    figures.put("trees_per_s", Math.round(r.treesPerSecond() * 1000) / 1000.0);
    figures.put("overhead_ms_per_turn", Math.round(r.overheadMillisPerTurn() * 10) / 10.0);
    return figures;
  }
}
