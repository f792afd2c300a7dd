package arbor.jobs.bench;

import arbor.jobs.bench.rlm.QasperDir;
import arbor.rlm.sandbox.WorkerPoolConfig;
import arbor.rlm.sandbox.SandboxLimits;
import arbor.jobs.cli.Args;
import arbor.rlm.RlmContext;
import arbor.jobs.bench.rlm.ReplLatencyBench;
import arbor.rlm.sandbox.WorkerPool;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/** Per-turn latency of typical cells in the isolated sandbox vs the same cells in CPython 3. */
final class ReplBench implements Benchmark {
  @Override
  public String summary() {
    return "turn latency in the isolated sandbox vs CPython 3 with pure-Python tools";
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    PrintStream out = ctx.out();
    Args args = Args.parse("bench repl", ctx.args(), Set.of(), Set.of("qasper", "papers", "reps", "warmup", "python"));
    Path qasper = QasperDir.require(args.value("qasper"));
    int papers = Integer.parseInt(args.value("papers").orElse("10"));
    int reps = Integer.parseInt(args.value("reps").orElse("50"));
    int warmup = Integer.parseInt(args.value("warmup").orElse("50"));
    String python = args.value("python").orElse("/usr/bin/python3");
    RlmContext.Papers context = ReplLatencyBench.context(qasper, papers);
    ReplLatencyBench.Result r;
    try (WorkerPool pool = new WorkerPool(WorkerPoolConfig.of(ctx.config().sandbox()), SandboxLimits.of(ctx.config().repl()))) {
      r = ReplLatencyBench.run(context, pool, python, warmup, reps);
    }
    out.printf("bench repl: %d papers, %d characters, %d repetitions after %d warm-up turns%n", papers,
        r.contextChars(), reps, warmup);
    out.printf("bench repl: turn   p50 %.1f ms / p99 %.1f ms in Arbor's sandbox, p50 %.1f ms / p99 %.1f ms in CPython%n",
        r.arborTurn().p50(), r.arborTurn().p99(), r.cpythonTurn().p50(), r.cpythonTurn().p99());
    out.printf("bench repl: search p50 %.1f ms in Arbor's sandbox, %.1f ms in CPython%n",
        r.arborSearch().p50(), r.cpythonSearch().p50());
    out.printf("bench repl: open   p50 %.1f ms / p99 %.1f ms for a REPL in Arbor's sandbox; CPython takes the same"
        + " context in p50 %.1f ms%n", r.arborOpen().p50(), r.arborOpen().p99(), r.cpythonContext().p50());
    return ReplLatencyBench.figures(r);
  }
}
