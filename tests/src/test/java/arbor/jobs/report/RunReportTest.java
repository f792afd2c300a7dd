package arbor.jobs.report;

import arbor.jobs.stats.GroupBootstrap;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.e2e.TestEnv;
import arbor.tables.Eval;
import arbor.tables.Metric;
import arbor.tables.Reward;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunReportTest {

  @TempDir static Path dir;
  static SparkSession spark;
  static final Timestamp AT = new Timestamp(0);
  static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

  @BeforeAll
  static void session() {
    spark = TestEnv.spark();
  }

  /** Three training steps of learner and judge metrics (no equal-reward share: the rewards give it), and sft's epochs. */
  static Dataset<Row> metrics() {
    List<Row> rows = new ArrayList<>();
    for (long step = 1; step <= 3; step++) {
      rows.add(RowFactory.create("run", step, "judge.reward_mean", 0.2 + 0.1 * step, AT));
      rows.add(RowFactory.create("run", step, "learner.kl", 0.01 * step, AT));
      rows.add(RowFactory.create("run", step, "learner.clip_fraction", 0.05, AT));
      rows.add(RowFactory.create("run", step, "rollouts.children_per_root", 1.0 + step, AT));
    }
    rows.add(RowFactory.create("run", 0L, "sft.loss.epoch_1", 2.0, AT));
    rows.add(RowFactory.create("run", 0L, "sft.loss.epoch_2", 1.5, AT));
    return spark.createDataFrame(rows, Metric.SCHEMA);
  }

  /** Two queries per step with two trees each: at step 1 one group's rewards are equal, at step 2 none. */
  static Dataset<Row> rewards() {
    List<Row> rows = new ArrayList<>();
    double[][] byStep = {{0.5, 0.5, 0.2, 0.9}, {0.1, 0.3, 0.2, 0.9}};
    for (int s = 0; s < 2; s++) {
      for (int i = 0; i < 4; i++) {
        rows.add(RowFactory.create("run", s + 1L, "n" + s + i, "q" + i / 2, i % 2, byStep[s][i], null, null, null,
            "rubric", null, null, null, Reward.OK, null));
      }
    }
    return spark.createDataFrame(rows, Reward.SCHEMA);
  }

  /**
   * Held-out trees at steps 0 and 3 of four queries from two paper groups. At step 3 group g0's
   * queries score 1 and g1's 0, so a bootstrap over groups reaches both 0 and 1.
   */
  static Dataset<Row> eval() {
    List<Row> rows = new ArrayList<>();
    for (long step : new long[] {0, 3}) {
      for (int q = 0; q < 4; q++) {
        for (int sample = 0; sample < 2; sample++) {
          double reward = step == 0 ? 0.25 : q < 2 ? 1.0 : 0.0;
          rows.add(RowFactory.create("run", step, "djl", "validation", "q" + q, sample, q < 2 ? "singleton" : "wide-net",
              reward, reward / 2, 1500L, 300L, (int) step, 1 + (int) step, step == 0 ? 0 : 1, "final", AT));
        }
      }
    }
    return spark.createDataFrame(rows, Eval.SCHEMA);
  }

  static Dataset<Row> groups() {
    StructType schema = new StructType().add("query_id", DataTypes.StringType).add("group_id", DataTypes.StringType);
    return spark.createDataFrame(List.of(RowFactory.create("q0", "g0"), RowFactory.create("q1", "g0"),
        RowFactory.create("q2", "g1"), RowFactory.create("q3", "g1")), schema);
  }

  static ReportInputs inputs() {
    return new ReportInputs(metrics(), rewards(), null, eval(), groups());
  }

  @Test
  void stepAxesAreLabelledAtWholeNumbersOnly() {
    assertEquals("", Charts.wholeNumberLabel(0.2));
    assertEquals("", Charts.wholeNumberLabel(2.5));
    assertEquals("0", Charts.wholeNumberLabel(0.0));
    assertEquals("12", Charts.wholeNumberLabel(12.0));
  }

  @Test
  void theBootstrapResamplesPaperGroupsNotQueries() {
    // Twenty queries from two paper groups: every query of g0 scores 1, every query of g1 scores 0.
    String[] groups = new String[20];
    String[] queries = new String[20];
    double[] scores = new double[20];
    for (int i = 0; i < 20; i++) {
      groups[i] = i < 10 ? "g0" : "g1";
      queries[i] = "q" + i;
      scores[i] = i < 10 ? 1 : 0;
    }
    var byGroup = GroupBootstrap.standard().of(groups, scores);
    assertEquals(0.5, byGroup.mean(), 1e-12);
    assertEquals(2, byGroup.groups());
    // A quarter of the resamples draw g1 twice (mean 0) and a quarter g0 twice (mean 1).
    assertEquals(0.0, byGroup.low(), 1e-12);
    assertEquals(1.0, byGroup.high(), 1e-12);
    // The same scores as if the queries were independent: a far narrower, overconfident interval.
    var byQuery = GroupBootstrap.standard().of(queries, scores);
    assertTrue(byQuery.low() > 0.2 && byQuery.high() < 0.8, byQuery.toString());
  }

  @Test
  void theReportHasPlotsIntervalsTrainingFiguresAndLinkedTrees() throws Exception {
    Path out = dir.resolve("a");
    var w = new RunReport().write(inputs(), "run", out, evalRun -> "../" + evalRun + "/view/");
    assertEquals(List.of(out.resolve("reward.png"), out.resolve("training.png"), out.resolve("sft_loss.png")), w.plots());
    for (Path p : w.plots()) {
      assertArrayEquals(PNG, Arrays.copyOf(Files.readAllBytes(p), 8), p + " is not a PNG");
    }
    String html = Files.readString(w.page());
    // Step 3's held-out reward over two groups, with its interval; step 0's has no spread.
    assertTrue(html.contains("<td>djl</td><td>validation</td><td>3</td><td>4</td><td>2</td><td>0.500</td>"
        + "<td>0.000 to 1.000</td>"), html);
    assertTrue(html.contains("<td>0</td><td>4</td><td>2</td><td>0.250</td><td>0.250 to 0.250</td>"), html);
    assertTrue(html.contains("<img src=\"training.png\""), html);
    assertTrue(html.contains("<img src=\"sft_loss.png\""), html);
    // The best and worst trees, each linked to its tree in the eval run's viewer.
    // Sixteen judged trees: the ten best, and the six worst that are not among them.
    assertTrue(html.contains("<h3>Best 10</h3>") && html.contains("<h3>Worst 6</h3>"), html);
    assertTrue(html.contains("href=\"../run-eval-djl-validation/view/step-3/q0.html#tree-0\""), html);
    assertTrue(html.contains("href=\"../run-eval-djl-validation/view/step-3/q2.html#tree-0\""), html);
    for (String q : List.of("q0", "q1", "q2", "q3")) {
      for (int sample = 0; sample < 2; sample++) {
        String link = "/view/step-0/" + q + ".html#tree-" + sample + "\"";
        assertEquals(1, html.split(java.util.regex.Pattern.quote(link), -1).length - 1, link + " listed once: " + html);
      }
    }
    // The per-tier table at the last step.
    assertTrue(html.contains("<td>djl</td><td>validation</td><td>3</td><td>singleton</td><td>4</td><td>1.000</td>"), html);
  }

  @Test
  void stepFiguresMissingFromMetricsComeFromTheTables() {
    var lines = TrainingFigures.of(metrics(), rewards(), null);
    // Step 1: q0's two rewards are equal, q1's are not; step 2: neither.
    assertEquals(0.5, lines.get("advantages.flat_group_share").get(1L), 1e-12);
    assertEquals(0.0, lines.get("advantages.flat_group_share").get(2L), 1e-12);
    // A figure the metrics have is not replaced by the tables' version.
    assertEquals(0.3, lines.get("judge.reward_mean").get(1L), 1e-12);
    assertEquals(List.of(1L, 2L, 3L), List.copyOf(lines.get("learner.kl").keySet()));
  }

  @Test
  void theDefaultLinksLeadFromTheReportToTheViewerBesideIt() {
    Path viewer = RunReport.viewerDir(ReportJob.defaultDir("run"), "run-eval-djl-validation");
    // For the default folders, where the report puts an eval run's viewer is where `view` would.
    assertEquals(arbor.jobs.view.ViewPaths.defaultDir("run-eval-djl-validation").toAbsolutePath(), viewer);
    assertEquals("../run-eval-djl-validation/view/", RunReport.relativeHref(ReportJob.defaultDir("run"), viewer));
  }

  @Test
  void theSameDataDrawsTheSamePlots() throws Exception {
    var a = new RunReport().write(inputs(), "run", dir.resolve("b1"), r -> "");
    var b = new RunReport().write(inputs(), "run", dir.resolve("b2"), r -> "");
    for (int i = 0; i < a.plots().size(); i++) {
      assertArrayEquals(Files.readAllBytes(a.plots().get(i)), Files.readAllBytes(b.plots().get(i)), a.plots().get(i).toString());
    }
    assertFalse(Files.readString(a.page()).contains("NaN"));
  }
}
