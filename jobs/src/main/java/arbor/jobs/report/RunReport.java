package arbor.jobs.report;

import arbor.jobs.stats.GroupBootstrap;
import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.max;

import arbor.notebook.Html;
import arbor.tables.Cols;
import arbor.tables.Eval;
import arbor.tables.Metric;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.knowm.xchart.XYChart;

/**
 * A run's report: {@code report.html} and its PNG plots in one folder, drawn from the warehouse
 * at any time ({@code arbor report}) and at the end of every {@code arbor eval}.
 *
 * <ul>
 *   <li>{@code reward.png}: the held-out reward of each evaluated version (per policy and split)
 *       with its 95% paper-group bootstrap interval, and the training reward per step beside it;
 *   <li>{@code training.png}: a grid of per-step training figures ({@link TrainingFigures#PANELS});
 *   <li>{@code sft_loss.png}: the cold start's training and held-out loss per epoch, where the run
 *       has them;
 *   <li>the page: those plots, the held-out numbers, a per-tier table at each version's last step,
 *       and the best and worst held-out trees linked into the rollout viewer.
 * </ul>
 *
 * Only aggregates and a few dozen trees reach the driver.
 */
public final class RunReport {

  /** What was written. */
  public record Written(Path page, List<Path> plots) {}

  /** Trees in each of the best and worst tables. */
  static final int TREES = 10;

  private final GroupBootstrap bootstrap;

  public RunReport() {
    this(GroupBootstrap.standard());
  }

  RunReport(GroupBootstrap bootstrap) {
    this.bootstrap = bootstrap;
  }

  /** Writes the report of {@code run} into {@code dir}, linking trees to the viewers' default folders. */
  /**
   * Where an eval run's viewer goes: beside the report's folder, so that for the default folders
   * (reports/RUN) it is the viewer's own default, reports/RUN-eval-POLICY-SPLIT/view.
   */
  public static Path viewerDir(Path reportDir, String evalRun) {
    return reportDir.toAbsolutePath().resolveSibling(evalRun).resolve("view");
  }

  public Written write(ReportInputs in, String run, Path dir) throws IOException {
    return write(in, run, dir, evalRun -> relativeHref(dir, viewerDir(dir, evalRun)));
  }

  /**
   * @param viewerRoot an eval run's id to the href (relative to {@code dir}, ending in '/') of the
   *     folder its viewer is in
   */
  Written write(ReportInputs in, String run, Path dir, Function<String, String> viewerRoot) throws IOException {
    Files.createDirectories(dir);
    List<HeldOut.Point> heldOut = HeldOut.of(in.eval(), in.queryGroups(), bootstrap);
    Map<String, TreeMap<Long, Double>> training = TrainingFigures.of(in.metrics(), in.rewards(), in.nodes());
    List<Path> plots = new ArrayList<>();
    plots.add(Charts.save(rewardChart(heldOut, training.get(TrainingFigures.REWARD)), dir.resolve("reward.png")));
    List<XYChart> panels = new ArrayList<>();
    // One step range for every panel, so that a step sits at the same place in each of them.
    long first = training.values().stream().filter(l -> !l.isEmpty()).mapToLong(TreeMap::firstKey).min().orElse(0);
    long last = training.values().stream().filter(l -> !l.isEmpty()).mapToLong(TreeMap::lastKey).max().orElse(0);
    for (TrainingFigures.Panel p : TrainingFigures.PANELS) {
      XYChart panel = Charts.lines(p.title(), "step", p.metric(), Map.of(p.metric(), training.get(p.metric())),
          Charts.WIDTH / 2, Charts.HEIGHT * 2 / 3);
      if (last > first && !training.get(p.metric()).isEmpty()) {
        panel.getStyler().setXAxisMin((double) first).setXAxisMax((double) last);
      }
      panels.add(panel);
    }
    plots.add(Charts.grid(panels, 4, dir.resolve("training.png")));
    Map<String, TreeMap<Long, Double>> sft = sftLoss(in.metrics());
    if (!sft.isEmpty()) {
      plots.add(Charts.save(Charts.lines("Cold-start SFT loss per epoch", "epoch", "token-mean loss", sft,
          Charts.WIDTH, Charts.HEIGHT), dir.resolve("sft_loss.png")));
    }

    StringBuilder body = new StringBuilder();
    body.append("<h2>Reward</h2>\n<p>Held-out: the mean judge reward over the queries of each evaluated version"
        + " (a query: the mean of its trees), with a 95% interval from a bootstrap that resamples the paper groups"
        + " the queries were made from. Training: <code>" + TrainingFigures.REWARD + "</code> per step.</p>\n"
        + "<img src=\"reward.png\" alt=\"reward\">\n");
    body.append(heldOutTable(heldOut));
    body.append("<h2>Training</h2>\n<p>Per step, from the run's metrics (or its rewards and rollout trees where"
        + " a step's metrics lack a figure).</p>\n<img src=\"training.png\" alt=\"training figures\">\n");
    if (!sft.isEmpty()) {
      body.append("<h2>Cold-start SFT</h2>\n<p>The x axis is the epoch, not the step.</p>\n"
          + "<img src=\"sft_loss.png\" alt=\"sft loss\">\n");
    }
    body.append("<h2>Per tier, at each version's last step</h2>\n").append(tierTable(in.eval()));
    body.append("<h2>Held-out trees</h2>\n<p>The links open the rollout viewer of the eval run"
        + " (<code>bin/arbor report</code> and <code>eval</code> write it beside the report).</p>\n");
    body.append(TreeTable.html(in.eval(), run, viewerRoot, TREES));
    Path page = dir.resolve("report.html");
    Files.writeString(page, page("Report of run " + run, body.toString()));
    return new Written(page, plots);
  }

  private static XYChart rewardChart(List<HeldOut.Point> heldOut, TreeMap<Long, Double> trainingReward) {
    XYChart chart = Charts.lines("Judge reward", "step", "mean reward", Map.of(), Charts.WIDTH, Charts.HEIGHT);
    if (!heldOut.isEmpty() || !trainingReward.isEmpty()) chart.removeSeries("no data yet");
    Color[] colors = chart.getStyler().getSeriesColors();
    Map<String, TreeMap<Long, double[]>> series = new LinkedHashMap<>();
    for (HeldOut.Point p : heldOut) {
      var i = p.interval();
      series.computeIfAbsent("held-out " + p.series(), k -> new TreeMap<>())
          .put(p.step(), new double[] {i.mean(), i.low(), i.high()});
    }
    int c = 0;
    for (var e : series.entrySet()) {
      Charts.addWithIntervals(chart, e.getKey(), e.getValue(), colors[c++ % colors.length]);
    }
    if (!trainingReward.isEmpty()) {
      var line = Charts.add(chart, "training", trainingReward);
      line.setLineColor(colors[c % colors.length]);
      line.setMarkerColor(colors[c % colors.length]);
    }
    chart.getStyler().setLegendVisible(true);
    return chart;
  }

  private static String heldOutTable(List<HeldOut.Point> points) {
    if (points.isEmpty()) return "<p>No held-out evaluation yet: <code>bin/arbor eval --run RUN</code>.</p>\n";
    StringBuilder t = new StringBuilder("<table>\n<tr><th>policy</th><th>split</th><th>step</th><th>queries</th>"
        + "<th>paper groups</th><th>mean reward</th><th>95% interval</th></tr>\n");
    boolean groupsKnown = true;
    for (HeldOut.Point p : points) {
      var i = p.interval();
      groupsKnown &= p.groupsKnown();
      t.append(String.format(Locale.ROOT,
          "<tr><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%.3f</td><td>%.3f to %.3f</td></tr>%n",
          Html.escape(p.policy()), Html.escape(p.split()), p.step(), i.queries(), i.groups(), i.mean(), i.low(),
          i.high()));
    }
    t.append("</table>\n");
    if (!groupsKnown) t.append("<p>The warehouse has no queries table: each query was resampled as its own group.</p>\n");
    return t.toString();
  }

  /** {@code sft.loss.epoch_N} and {@code sft.held_out_loss.epoch_N} of the run, by epoch N. */
  private static Map<String, TreeMap<Long, Double>> sftLoss(Dataset<Row> metrics) {
    Map<String, TreeMap<Long, Double>> out = new TreeMap<>();
    for (Row r : metrics.where(col(Metric.NAME).rlike("^sft\\.(loss|held_out_loss)\\.epoch_[0-9]+$"))
        .select(Metric.NAME, Metric.VALUE).collectAsList()) {
      String name = r.getString(0);
      String series = name.startsWith("sft.held_out") ? "held out" : "training";
      out.computeIfAbsent(series, k -> new TreeMap<>())
          .put(Long.parseLong(name.substring(name.lastIndexOf('_') + 1)), r.getDouble(1));
    }
    return out;
  }

  private static String tierTable(Dataset<Row> eval) {
    // Each (policy, split) at its own last step: a window, not a self-join.
    var bySeries = Window.partitionBy(Eval.POLICY, Eval.SPLIT);
    List<Row> rows = eval.withColumn("last", max(Cols.STEP).over(bySeries))
        .where(col(Cols.STEP).equalTo(col("last")))
        .groupBy(Eval.POLICY, Eval.SPLIT, Cols.STEP, Eval.TIER)
        .agg(count("*").as("n"), avg(Eval.REWARD).as("reward"), avg(Eval.SPAN_F1).as("f1"),
            avg(Eval.LATENCY_MS).as("latency"), avg(Eval.GEN_TOKENS).as("tokens"),
            avg(Eval.CHILDREN).as("children"))
        .orderBy(Eval.POLICY, Eval.SPLIT, Eval.TIER)
        .collectAsList();
    if (rows.isEmpty()) return "<p>No evaluated trees yet.</p>\n";
    StringBuilder t = new StringBuilder("<table>\n<tr><th>policy</th><th>split</th><th>step</th><th>tier</th>"
        + "<th>trees</th><th>reward</th><th>span F1</th><th>latency s</th><th>tokens</th><th>children</th></tr>\n");
    for (Row r : rows) {
      t.append(String.format(Locale.ROOT,
          "<tr><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%.1f</td>"
              + "<td>%.0f</td><td>%.2f</td></tr>%n",
          Html.escape(r.getString(0)), Html.escape(r.getString(1)), r.getLong(2), Html.escape(r.getString(3)),
          r.getLong(4), num(r, 5), num(r, 6), r.getDouble(7) / 1000, r.getDouble(8), r.getDouble(9)));
    }
    return t.append("</table>\n").toString();
  }

  private static String num(Row r, int i) {
    return r.isNullAt(i) ? "-" : String.format(Locale.ROOT, "%.3f", r.getDouble(i));
  }

  /** The href from folder {@code from} to folder {@code to} (both taken from the working directory), with '/'. */
  static String relativeHref(Path from, Path to) {
    Path rel = from.toAbsolutePath().normalize().relativize(to.toAbsolutePath().normalize());
    String s = rel.toString().replace(java.io.File.separatorChar, '/');
    return s.isEmpty() ? "" : s + "/";
  }

  private static String page(String title, String body) {
    return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + Html.escape(title)
        + "</title>\n<style>body{font-family:sans-serif;max-width:1850px;margin:1em auto;padding:0 1em}"
        + "img{max-width:100%}table{border-collapse:collapse;margin:.5em 0}"
        + "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}</style></head>\n<body>\n<h1>" + Html.escape(title) + "</h1>\n"
        + body + "</body></html>\n";
  }
}
