package arbor.jobs.eval;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.e2e.TestEnv;
import arbor.tables.Eval;
import arbor.tables.Metrics;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvalReportTest {

  @TempDir static Path dir;
  static SparkSession spark;
  static final Timestamp AT = new Timestamp(0);
  static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

  @BeforeAll
  static void session() {
    spark = TestEnv.spark();
  }

  /** Two steps of training metrics whose reward rises by {@code slope} per step. */
  static Dataset<Row> metrics(double slope) {
    List<Row> rows = new ArrayList<>();
    for (long step = 1; step <= 3; step++) {
      rows.add(RowFactory.create("run", step, "judge.reward_mean", 0.2 + slope * step, AT));
      rows.add(RowFactory.create("run", step, "learner.kl", 0.01 * step, AT));
    }
    return spark.createDataFrame(rows, Metrics.SCHEMA);
  }

  /** Eval trees at steps 0 and 3: two tiers, the later step better and bushier. */
  static Dataset<Row> eval(double reward3) {
    List<Row> rows = new ArrayList<>();
    for (long step : new long[] {0, 3}) {
      for (int q = 0; q < 4; q++) {
        String tier = q < 2 ? "singleton" : "wide-net";
        double reward = step == 0 ? 0.25 : reward3;
        rows.add(RowFactory.create("run", step, "checkpoint", "validation", "q" + q, 0, tier,
            reward, reward / 2, 1500L + q, 300L, (int) step, 1 + (int) step, step == 0 ? 0 : 1,
            "done", AT));
      }
    }
    return spark.createDataFrame(rows, Eval.SCHEMA);
  }

  @Test
  void theReportHasPngPlotsAndAPerTierTable() throws Exception {
    var w = new EvalReport(EvalReport.MetricNames.DEFAULT).write(metrics(0.1), eval(0.75),
        dir.resolve("a"), "Demo run");
    assertEquals(3, w.plots().size());
    for (Path p : w.plots()) {
      assertArrayEquals(PNG, Arrays.copyOf(Files.readAllBytes(p), 8), p + " is not a PNG");
    }
    String md = Files.readString(w.markdown());
    assertTrue(md.contains("![reward](reward.png)"), md);
    assertTrue(md.contains("| policy | split | step | tier | trees | reward |"), md);
    // Last step (3), two trees per tier, reward 0.75 and span F1 0.375 in both tiers.
    assertTrue(md.contains("| checkpoint | validation | 3 | singleton | 2 | 0.750 | 0.375 | 1.5 |"),
        md);
    assertTrue(md.contains("| checkpoint | validation | 3 | wide-net | 2 | 0.750 | 0.375 | 1.5 |"),
        md);
    assertFalse(md.contains("| 0 | singleton"), "only each policy's last step is tabled");
  }

  @Test
  void differentDataDrawsDifferentPlots() throws Exception {
    var a = new EvalReport(EvalReport.MetricNames.DEFAULT).write(metrics(0.1), eval(0.75),
        dir.resolve("b1"), "run");
    var b = new EvalReport(EvalReport.MetricNames.DEFAULT).write(metrics(-0.05), eval(0.40),
        dir.resolve("b2"), "run");
    var same = new EvalReport(EvalReport.MetricNames.DEFAULT).write(metrics(0.1), eval(0.75),
        dir.resolve("b3"), "run");
    byte[] reward1 = Files.readAllBytes(a.plots().get(0));
    assertFalse(Arrays.equals(reward1, Files.readAllBytes(b.plots().get(0))),
        "other rewards, same reward plot");
    assertArrayEquals(reward1, Files.readAllBytes(same.plots().get(0)),
        "the same data should draw the same plot");
  }
}
