package arbor.jobs.report;

import arbor.jobs.Args;
import arbor.jobs.Job;
import arbor.jobs.JobContext;
import arbor.jobs.UsageError;
import arbor.warehouse.Warehouse;
import java.nio.file.Path;
import java.util.Set;

/**
 * {@code arbor report --run RUN [--out DIR]}: the run's report ({@link RunReport}) from what the
 * warehouse holds now, during training or after; {@code eval} writes the same report when it ends.
 */
public final class ReportJob implements Job {

  @Override
  public String summary() {
    return "a run's report: reward with intervals, training figures, best and worst trees";
  }

  @Override
  public String usage() {
    return """
        usage: arbor report --run RUN [--out DIR]
          --run   the training run (its eval runs, RUN-eval-POLICY-SPLIT, are read with it)
          --out   the report's folder (default reports/RUN; the trees link to the viewer
                  folders beside it, reports/RUN-eval-POLICY-SPLIT/view)""";
  }

  /** The report's default folder: the rollout viewer's parent, so their links meet. */
  public static Path defaultDir(String run) {
    return Path.of("reports", run);
  }

  @Override
  public int run(JobContext context) throws Exception {
    Args args = Args.parse("report", context.args(), Set.of(), Set.of("run", "out"));
    String run = args.value("run").orElseThrow(() -> new UsageError("report: give the run: --run RUN"));
    Path out = args.value("out").map(Path::of).orElse(defaultDir(run));
    Warehouse w = context.warehouse();
    ReportInputs in = ReportInputs.read(w, run);
    if (in.isEmpty()) {
      throw new UsageError("report: run '" + run + "' has no metrics and no eval rows in " + w.root()
          + "; train, sft or eval it first");
    }
    RunReport.Written written = new RunReport().write(in, run, out);
    context.out().println("report: " + written.page().toAbsolutePath());
    return 0;
  }
}
