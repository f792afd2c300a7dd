package arbor.jobs.view;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.countDistinct;

import arbor.jobs.cli.Args;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import arbor.tables.Cols;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;

/**
 * {@code arbor view --run RUN [--step N] [--out DIR]}: the rollout viewer, a static site (HTML,
 * CSS and a little JavaScript; no server, nothing fetched at view time) over a run's rollout
 * tables ({@link ViewSite}). Works on training runs and on eval runs ({@code RUN-eval-djl-validation}).
 */
public final class ViewJob implements Job {

  @Override
  public String summary() {
    return "the rollout viewer: a run's trees as a static site (open its index.html)";
  }

  @Override
  public String usage() {
    return """
        usage: arbor view --run RUN [--step N] [--out DIR]
          --run   a training run, or an eval run (RUN-eval-POLICY-SPLIT, as eval prints)
          --step  one step only (default: every step of the run)
          --out   the site's folder (default reports/RUN/view)""";
  }

  @Override
  public int run(JobContext context) throws Exception {
    Args args = Args.parse("view", context.args(), Set.of(), Set.of("run", "step", "out"));
    String run = args.value("run").orElseThrow(() -> new UsageError("view: give the run: --run RUN"));
    Path out = Path.of(args.value("out").orElse(ViewPaths.defaultDir(run).toString()));
    Long only = args.value("step").map(ViewJob::parseStep).orElse(null);
    write(context.warehouse(), run, only, out, context.out());
    return 0;
  }

  /**
   * Writes the site of {@code run} (one step when {@code onlyStep} is not null) into {@code out},
   * a line per step on {@code console}; returns the index page.
   */
  public static Path write(Warehouse w, String run, Long onlyStep, Path out, PrintStream console) {
    RunTables tables = new RunTables(w, run);
    List<Long> steps = tables.steps();
    if (steps.isEmpty()) {
      throw new UsageError("view: run '" + run + "' has no rollout trees in " + w.root()
          + " (runs with trees: " + runsWithTrees(w) + ")");
    }
    if (onlyStep != null) {
      if (!steps.contains(onlyStep)) {
        throw new UsageError("view: run '" + run + "' has no trees at step " + onlyStep + "; its steps are " + steps);
      }
      steps = List.of(onlyStep);
    }
    var queries = tables.queries();
    ViewSite site = new ViewSite(out, run, stepsPerQuery(w, run, steps));
    int files = 0;
    long start = System.nanoTime();
    for (int i = 0; i < steps.size(); i++) {
      StepTrees s = tables.step(steps.get(i), queries);
      files += site.addStep(s, i == 0 ? null : steps.get(i - 1), i + 1 == steps.size() ? null : steps.get(i + 1));
      console.printf("view: step %d (%d of %d): %d trees, %d nodes, %.0f s%n", s.step(), i + 1, steps.size(),
          s.roots().size(), s.nodes().size(), (System.nanoTime() - start) / 1e9);
    }
    files += site.finish();
    Path index = out.resolve("index.html");
    console.printf("view: %d pages in %s%n", files, out.toAbsolutePath());
    console.println("view: open " + index.toAbsolutePath());
    return index;
  }

  private static long parseStep(String s) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new UsageError("view: --step must be a number, got '" + s + "'");
    }
  }

  /** How many of the shown steps each query has trees in. */
  private static Map<String, Integer> stepsPerQuery(Warehouse w, String run, List<Long> steps) {
    Map<String, Integer> out = new HashMap<>();
    for (Row r : w.read(Table.ROLLOUT_NODES).where(col(Cols.RUN_ID).equalTo(run).and(col(Cols.STEP).isin(steps.toArray())))
        .groupBy(Cols.QUERY_ID).agg(countDistinct(Cols.STEP)).collectAsList()) {
      out.put(r.getString(0), (int) r.getLong(1));
    }
    return out;
  }

  private static List<String> runsWithTrees(Warehouse w) {
    if (!w.exists(Table.ROLLOUT_NODES)) return List.of();
    return w.read(Table.ROLLOUT_NODES).select(Cols.RUN_ID).distinct().orderBy(Cols.RUN_ID).limit(20).collectAsList()
        .stream().map(r -> r.getString(0)).toList();
  }
}
