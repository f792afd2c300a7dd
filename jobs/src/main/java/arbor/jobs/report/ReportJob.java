package arbor.jobs.report;

import arbor.jobs.cli.Args;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import arbor.jobs.view.ViewJob;
import arbor.pipelines.warehouse.Warehouse;
import java.io.IOException;
import java.io.PrintStream;
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
          --out   the report's folder (default reports/RUN); the viewer of each eval run is
                  written beside it (reports/RUN-eval-POLICY-SPLIT/view), and the trees link there""";
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
    Path page = write(context.warehouse(), run, out, context.out());
    context.out().println("report: " + page.toAbsolutePath());
    return 0;
  }

  /**
   * Writes the report of {@code run} into {@code dir}, and the rollout viewer of each eval run it
   * links to ({@link RunReport#viewerDir}), so that every tree link opens; returns the page.
   */
  public static Path write(Warehouse w, String run, Path dir, PrintStream console) throws IOException {
    ReportInputs in = ReportInputs.read(w, run);
    if (in.isEmpty()) {
      throw new UsageError("report: run '" + run + "' has no metrics and no eval rows in " + w.root()
          + "; train, sft or eval it first");
    }
    Path page = new RunReport().write(in, run, dir).page();
    for (String evalRun : in.evalRuns(run)) {
      ViewJob.write(w, evalRun, null, RunReport.viewerDir(dir, evalRun), console);
    }
    return page;
  }
}
