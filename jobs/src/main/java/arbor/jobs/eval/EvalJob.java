package arbor.jobs.eval;

import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;

import arbor.pipelines.checkpoints.CheckpointStore;
import arbor.conf.ArborConfig;
import arbor.conf.RolloutSettings;
import arbor.pipelines.eval.Evaluate;
import arbor.jobs.cli.Args;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import arbor.jobs.report.ReportJob;
import arbor.conf.PolicyKind;
import arbor.tables.Cols;
import arbor.tables.Eval;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * {@code arbor eval --run RUN [--step N|latest] [--policy P] [--split S] [--report DIR]}: one
 * policy on the validation or test split in the training harness ({@link Evaluate}), a summary
 * on the console and the run's report (as {@code arbor report} writes it).
 */
public final class EvalJob implements Job {

  @Override
  public String summary() {
    return "evaluate a checkpoint or another policy on a split; eval table and report";
  }

  @Override
  public String usage() {
    return """
        usage: arbor eval --run RUN [--step N|latest] [--policy djl|scripted|openai|anthropic]
                          [--split validation|test] [--report DIR]
          --step     djl: which checkpoint of the run (default latest); other policies: the
                     step the rows are filed under (default 0)
          --policy   default djl (the run's checkpoint)
          --split    default validation
          --report   the report folder (default reports/RUN)""";
  }

  @Override
  public int run(JobContext context) throws Exception {
    Args args = Args.parse("eval", context.args(), Set.of(), Set.of("run", "step", "policy", "split", "report"));
    String run = args.value("run").orElseThrow(() -> new UsageError("eval: give the run: --run RUN"));
    String split = args.value("split").orElse("validation");
    if (!split.equals("validation") && !split.equals("test")) {
      throw new UsageError("eval: --split must be validation or test, got '" + split + "'");
    }
    PolicyKind policy;
    try {
      policy = PolicyKind.parse(args.value("policy").orElse("djl"));
    } catch (IllegalArgumentException e) {
      throw new UsageError("eval: --policy: " + e.getMessage());
    }
    Path report = args.value("report").map(Path::of).orElse(ReportJob.defaultDir(run));
    ArborConfig base = context.config();
    RolloutSettings r = base.rollouts();
    ArborConfig config = base.withRollouts(new RolloutSettings(policy, r.samples(), r.treesPerTask(),
        r.maxInfraFailureFraction(), r.sandbox()));
    Warehouse w = context.warehouse();
    CheckpointStore store = new CheckpointStore(context.spark(), w, base.checkpoints());
    long step = step(args.value("step").orElse(policy == PolicyKind.DJL ? "latest" : "0"), run, store);
    // djl: the policy version is the checkpoint's step; the others have no versions.
    long version = policy == PolicyKind.DJL ? step : 0;
    var out = context.out();
    out.printf(Locale.ROOT, "eval: %s at step %d on the %s split of run %s%n", policy.key(), step, split, run);
    // Every version from the run's checkpoints, step 0 (sft's or the base it saved) included.
    Evaluate.Written written = new Evaluate(config, new arbor.policy.holder.RunCheckpoints(store.source()), context.apiKeys(),
        out::println).evaluate(w, run, step, version, split);
    Dataset<Row> rows = w.read(Table.EVAL).where(col(Cols.RUN_ID).equalTo(run).and(col(Cols.STEP).equalTo(step))
        .and(col(Eval.POLICY).equalTo(policy.key())).and(col(Eval.SPLIT).equalTo(split)));
    Row s = rows.agg(count("*"), avg(Eval.REWARD), avg(Eval.SPAN_F1), avg(Eval.LATENCY_MS), avg(Eval.GEN_TOKENS),
        avg(Eval.CHILDREN), avg(Eval.NODES), avg(Eval.DEPTH)).first();
    out.printf(Locale.ROOT, "eval: %d trees (rollouts under run %s)%n", s.getLong(0), written.evalRunId());
    out.printf(Locale.ROOT, "eval: judge score %s  span F1 %s  latency %.1f s/tree  tokens %.0f/tree%n",
        num(s, 1), num(s, 2), s.getDouble(3) / 1000, s.getDouble(4));
    out.printf(Locale.ROOT, "eval: tree shape: %.2f children per root, %.2f nodes, depth %.2f%n",
        s.getDouble(5), s.getDouble(6), s.getDouble(7));
    // The run's one report, as `arbor report` writes it, now with this evaluation in it.
    out.println("eval: report " + ReportJob.write(w, run, report, out).toAbsolutePath());
    return 0;
  }

  private static long step(String arg, String run, CheckpointStore store) {
    if (arg.equals("latest")) {
      return store.latest(run).orElseThrow(() -> new UsageError("eval: run '" + run + "' has no checkpoint in "
          + store.tablePath() + "; run sft or train first, or give --policy scripted"));
    }
    try {
      return Long.parseLong(arg);
    } catch (NumberFormatException e) {
      throw new UsageError("eval: --step must be a number or 'latest', got '" + arg + "'");
    }
  }

  private static String num(Row r, int i) {
    return r.isNullAt(i) ? "-" : String.format(Locale.ROOT, "%.3f", r.getDouble(i));
  }
}
