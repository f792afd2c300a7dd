package arbor.jobs.eval;

import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.max;

import arbor.tables.Cols;
import arbor.tables.Eval;
import arbor.tables.Metrics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;

/**
 * The evaluation report: a folder with {@code report.md} and PNG plots (XChart), from the
 * {@code metrics} rows of training runs and the {@code eval} rows of evaluated policies.
 *
 * <ul>
 *   <li>{@code reward.png}: mean judge reward over steps, one line per (policy, split) from
 *       {@code eval}, and the training reward of each run from {@code metrics};
 *   <li>{@code kl.png}: the learner's KL to the reference over steps, per run;
 *   <li>{@code tree_shape.png}: children per root, nodes per tree and depth over steps;
 *   <li>{@code sft_loss.png}: the cold start's training and held-out loss per epoch, where a run
 *       has them;
 *   <li>the markdown page: those plots and a per-tier table at each policy's last step.
 * </ul>
 *
 * Only aggregates reach the driver: one row per (series, step) or (policy, tier).
 */
public final class EvalReport {

  /** Which metric names hold the training reward and the KL (dotted by phase, see Metrics). */
  public record MetricNames(String reward, String kl) {
    public static final MetricNames DEFAULT = new MetricNames("judge.reward_mean", "learner.kl");
  }

  /** What was written. */
  public record Written(Path markdown, List<Path> plots) {}

  private static final int WIDTH = 900;
  private static final int HEIGHT = 480;

  private final MetricNames names;

  public EvalReport(MetricNames names) {
    this.names = names;
  }

  /**
   * Writes the report into {@code dir} (created; files of the same names are replaced).
   *
   * @param metrics rows of the {@code metrics} schema (may be empty)
   * @param eval rows of the {@code eval} schema
   */
  public Written write(Dataset<Row> metrics, Dataset<Row> eval, Path dir, String title)
      throws IOException {
    Files.createDirectories(dir);
    String series = "concat(" + Eval.POLICY + ", ' / ', " + Eval.SPLIT + ")";
    var evalBySeries = lines(eval.where(col(Eval.REWARD).isNotNull())
        .selectExpr(series + " AS series", Cols.STEP, Eval.REWARD + " AS y"));
    var trainReward = lines(metrics.where(col(Metrics.NAME).equalTo(names.reward()))
        .selectExpr("concat(" + Cols.RUN_ID + ", ' (training)') AS series", Cols.STEP,
            Metrics.VALUE + " AS y"));
    var kl = lines(metrics.where(col(Metrics.NAME).equalTo(names.kl()))
        .selectExpr(Cols.RUN_ID + " AS series", Cols.STEP, Metrics.VALUE + " AS y"));
    Map<String, TreeMap<Long, Double>> shape = new LinkedHashMap<>();
    for (String[] m : new String[][] {{Eval.CHILDREN, "children per root"},
        {Eval.NODES, "nodes per tree"}, {Eval.DEPTH, "depth"}}) {
      lines(eval.selectExpr(series + " AS series", Cols.STEP, "CAST(" + m[0] + " AS DOUBLE) AS y"))
          .forEach((s, points) -> shape.put(m[1] + ": " + s, points));
    }

    Map<String, TreeMap<Long, Double>> rewards = new LinkedHashMap<>(evalBySeries);
    rewards.putAll(trainReward);
    List<Path> plots = new ArrayList<>();
    plots.add(plot(dir.resolve("reward.png"), "Judge reward over steps", "mean reward", rewards));
    plots.add(plot(dir.resolve("kl.png"), "KL to the reference policy", "KL", kl));
    plots.add(plot(dir.resolve("tree_shape.png"), "Tree shape over steps", "mean", shape));
    Map<String, TreeMap<Long, Double>> sft = sftLoss(metrics);
    if (!sft.isEmpty()) {
      plots.add(plot(dir.resolve("sft_loss.png"), "Cold-start SFT loss per epoch", "epoch", "token-mean loss", sft));
    }

    StringBuilder md = new StringBuilder();
    md.append("# ").append(title).append("\n\n");
    md.append("Evaluated trees: ").append(eval.count()).append(". Plots are means per step.\n\n");
    md.append("## Reward\n\n![reward](reward.png)\n\n");
    md.append("## KL\n\n").append(kl.isEmpty() ? "No `" + names.kl() + "` metrics yet.\n\n" : "")
        .append("![kl](kl.png)\n\n");
    md.append("## Tree shape\n\n![tree shape](tree_shape.png)\n\n");
    if (!sft.isEmpty()) {
      md.append("## Cold-start SFT\n\nThe x axis is the epoch, not the step.\n\n![sft loss](sft_loss.png)\n\n");
    }
    md.append("## Per tier, at each policy's last step\n\n");
    md.append(tierTable(eval));
    Path markdown = dir.resolve("report.md");
    Files.writeString(markdown, md);
    return new Written(markdown, plots);
  }

  /** {@code sft.loss.epoch_N} and {@code sft.held_out_loss.epoch_N} of each run, by epoch N. */
  private static Map<String, TreeMap<Long, Double>> sftLoss(Dataset<Row> metrics) {
    Map<String, TreeMap<Long, Double>> out = new TreeMap<>();
    for (Row r : metrics.where(col(Metrics.NAME).rlike("^sft\\.(loss|held_out_loss)\\.epoch_[0-9]+$"))
        .select(Cols.RUN_ID, Metrics.NAME, Metrics.VALUE).collectAsList()) {
      String name = r.getString(1);
      String series = r.getString(0) + (name.startsWith("sft.held_out") ? " (held out)" : " (training)");
      out.computeIfAbsent(series, k -> new TreeMap<>())
          .put(Long.parseLong(name.substring(name.lastIndexOf('_') + 1)), r.getDouble(2));
    }
    return out;
  }

  /** Mean y per (series, step), as one sorted line per series. */
  private static Map<String, TreeMap<Long, Double>> lines(Dataset<Row> seriesStepY) {
    Map<String, TreeMap<Long, Double>> out = new TreeMap<>();
    for (Row r : seriesStepY.groupBy("series", Cols.STEP).agg(avg("y").as("y"))
        .collectAsList()) {
      out.computeIfAbsent(r.getString(0), k -> new TreeMap<>()).put(r.getLong(1), r.getDouble(2));
    }
    return out;
  }

  private static String tierTable(Dataset<Row> eval) {
    // Each (policy, split) at its own last step: a window, not a self-join.
    var bySeries = org.apache.spark.sql.expressions.Window.partitionBy(Eval.POLICY, Eval.SPLIT);
    List<Row> rows = eval.withColumn("last", max(Cols.STEP).over(bySeries))
        .where(col(Cols.STEP).equalTo(col("last")))
        .groupBy(Eval.POLICY, Eval.SPLIT, Cols.STEP, Eval.TIER)
        .agg(count("*").as("n"), avg(Eval.REWARD).as("reward"), avg(Eval.SPAN_F1).as("f1"),
            avg(Eval.LATENCY_MS).as("latency"), avg(Eval.GEN_TOKENS).as("tokens"),
            avg(Eval.CHILDREN).as("children"))
        .orderBy(Eval.POLICY, Eval.SPLIT, Eval.TIER)
        .collectAsList();
    StringBuilder t = new StringBuilder("| policy | split | step | tier | trees | reward |"
        + " span F1 | latency s | tokens | children |\n|---|---|---:|---|---:|---:|---:|---:|---:|---:|\n");
    for (Row r : rows) {
      t.append(String.format(Locale.ROOT, "| %s | %s | %d | %s | %d | %s | %s | %.1f | %.0f | %.2f |%n",
          r.getString(0), r.getString(1), r.getLong(2), r.getString(3), r.getLong(4),
          num(r, 5), num(r, 6), r.getDouble(7) / 1000, r.getDouble(8), r.getDouble(9)));
    }
    if (rows.isEmpty()) {
      t.append("| (no evaluated trees) | | | | | | | | | |\n");
    }
    return t.toString();
  }

  private static String num(Row r, int i) {
    return r.isNullAt(i) ? "-" : String.format(Locale.ROOT, "%.3f", r.getDouble(i));
  }

  private static Path plot(Path file, String title, String yTitle,
      Map<String, TreeMap<Long, Double>> lines) throws IOException {
    return plot(file, title, "step", yTitle, lines);
  }

  private static Path plot(Path file, String title, String xTitle, String yTitle,
      Map<String, TreeMap<Long, Double>> lines) throws IOException {
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
        .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    chart.getStyler().setLegendVisible(true);
    chart.getStyler().setYAxisDecimalPattern("0.###");
    chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    if (lines.isEmpty()) {
      // XChart refuses an empty chart; an explicit placeholder says there is nothing yet.
      chart.addSeries("no data yet", new double[] {0}, new double[] {0});
    }
    for (var e : lines.entrySet()) {
      double[] x = e.getValue().keySet().stream().mapToDouble(Long::doubleValue).toArray();
      double[] y = e.getValue().values().stream().mapToDouble(Double::doubleValue).toArray();
      chart.addSeries(e.getKey(), x, y);
    }
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return file;
  }
}
