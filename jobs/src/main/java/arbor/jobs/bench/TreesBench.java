package arbor.jobs.bench;

import arbor.jobs.bench.rlm.QasperDir;
import arbor.rlm.sandbox.SandboxLimits;
import arbor.rlm.RlmLimits;
import arbor.jobs.cli.Args;
import arbor.rlm.Prompts;
import arbor.jobs.bench.rlm.TreeLoadBench;
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
        Set.of("qasper", "queries", "samples", "papers", "workers", "seed", "runaway-every", "alone"));
    Path qasper = QasperDir.require(args.value("qasper"));
    int queries = Integer.parseInt(args.value("queries").orElse("16"));
    int samples = Integer.parseInt(args.value("samples").orElse("8"));
    int papers = Integer.parseInt(args.value("papers").orElse("5"));
    int workers = Integer.parseInt(args.value("workers").orElse("2"));
    long seed = Long.parseLong(args.value("seed").orElse("1"));
    int runawayEvery = Integer.parseInt(args.value("runaway-every").orElse("20"));
    int alone = Integer.parseInt(args.value("alone").orElse("4"));
    var c = ctx.config();
    Prompts prompts = Prompts.of(c.rlm());
    List<TreeLoadBench.Query> qs = TreeLoadBench.queries(qasper, queries, papers, seed);
    WorkerPoolConfig d = WorkerPoolConfig.of(c.sandbox());
    // The configured REPL capacity, not one sized for the batch: a parent waiting for its children
    // lends them its slot, so the full batch (up to 640 live REPLs) fits the default 2 x 256.
    WorkerPoolConfig pool = new WorkerPoolConfig(workers, d.sessionsPerWorker(), 2048, d.jvmOptions(), d.resourceCache(),
        d.startTimeout(), d.logDir(), Math.max(1, Runtime.getRuntime().availableProcessors() / workers),
        d.restoreMaxActive(), d.heartbeatInterval(), d.heartbeatTimeout(), 512);
    out.printf("bench trees: %d queries x %d samples, %d papers each, %d workers x %d sessions, a runaway cell in"
        + " 1 child of %d%n", qs.size(), samples, papers, workers, d.sessionsPerWorker(), runawayEvery);
    TreeLoadBench.Result r;
    double harness;
    try (WorkerPool sandbox = new WorkerPool(pool, SandboxLimits.of(c.repl()))) {
      sandbox.warmUp();
      harness = TreeLoadBench.harnessMillisPerTurn(qs.subList(0, Math.min(alone, qs.size())), sandbox, prompts,
          RlmLimits.of(c.rlm(), c.repl()));
      out.printf("bench trees: %.1f ms harness time per turn with one tree at a time (%d trees)%n", harness,
          Math.min(alone, qs.size()));
      r = TreeLoadBench.run(qs, samples, sandbox, prompts, RlmLimits.of(c.rlm(), c.repl()), runawayEvery, out);
    }
    out.printf("bench trees: %d/%d completed, %d timeouts, %d cross-talk, %.2f trees/s, %.1f ms harness time per turn"
        + " under the full batch (%d nodes, %d turns, at most %d live at once)%n", r.completed(), r.trees(), r.timeouts(),
        r.crosstalk(), r.treesPerSecond(), r.overheadMillisPerTurn(), r.nodes(), r.turns(), r.peakLiveNodes());
    out.printf("bench trees: %d runaway cells, %d nodes ended sandbox_error (their own cell), %d collateral losses"
        + " (sandbox_lost)%n", r.runaways(), r.killed(), r.collateralLosses());
    r.lossReasons().forEach((why, n) -> out.printf("bench trees:   %d lost: %s%n", n, why));
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("trees", r.trees());
    figures.put("completed", r.completed());
    figures.put("timeouts", r.timeouts());
    figures.put("crosstalk", r.crosstalk());
    figures.put("trees_per_s", Math.round(r.treesPerSecond() * 1000) / 1000.0);
    figures.put("overhead_ms_per_turn", Math.round(r.overheadMillisPerTurn() * 10) / 10.0);
    figures.put("harness_ms_per_turn", Math.round(harness * 10) / 10.0);
    figures.put("peak_live_nodes", r.peakLiveNodes());
    figures.put("runaways", r.runaways());
    figures.put("runaway_nodes_lost", r.killed());
    figures.put("collateral_losses", r.collateralLosses());
    return figures;
  }
}
