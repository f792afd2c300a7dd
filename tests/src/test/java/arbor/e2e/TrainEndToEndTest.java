package arbor.e2e;

import static arbor.e2e.TrainFixture.duplicates;
import static arbor.e2e.TrainFixture.rows;
import static arbor.e2e.TrainFixture.train;
import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.ArborConfig;
import arbor.jobs.cli.UsageError;
import arbor.pipelines.checkpoints.CheckpointStore;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.checkpoint.TableVersion;
import arbor.policy.files.HostTensor;
import arbor.rlm.runtime.SharedRuntimes;
import arbor.tables.Cols;
import arbor.tables.Metric;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code arbor train} on local Spark, real Delta and the tiny djl model: two steps end to end;
 * a run that crashed in step 2 after its rewards were written, refused a restart without
 * {@code --resume} and was resumed ends with the same step-2 checkpoint as a run that never
 * stopped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TrainEndToEndTest {
  private static final String RUN = TrainFixture.RUN;
  private static final List<Table> STEP_TABLES = TrainFixture.STEP_TABLES;

  private Path root;
  private SparkSession spark;

  @BeforeAll
  void setUp() throws Exception {
    spark = TestEnv.spark();
    root = TestEnv.WORK.resolve("train-e2e");
  }

  @AfterAll
  void close() {
    SharedRuntimes.closeAll();
  }

  @Test
  void twoStepsEndToEndAndAResumedCrashedRunEndsWithTheSameCheckpoint() throws Exception {
    // Uninterrupted: two steps (the fixture's run, shared with DriverKillEndToEndTest), evaluated
    // before the first and after the second (eval_every 2) on one validation query; the resumed
    // run below has none and is not evaluated.
    TrainFixture.Straight uninterrupted = TrainFixture.straight();
    ArborConfig straight = uninterrupted.config();
    String console = uninterrupted.console();
    assertTrue(console.contains("step 1/2") && console.contains("step 2/2"), console);
    Warehouse w = new Warehouse(spark, straight.warehouse());
    assertTrue(console.indexOf("evaluated policy v0") >= 0 && console.indexOf("evaluated policy v0") < console.indexOf("step 1/2")
        && console.indexOf("evaluated policy v2") > console.indexOf("step 2/2") && !console.contains("evaluated policy v1"), console);
    String evalRun = RUN + "-eval-djl-validation";
    for (long v : List.of(0L, 2L)) {
      List<Row> evals = w.read(Table.EVAL).where(col(Cols.RUN_ID).equalTo(RUN).and(col(Cols.STEP).equalTo(v))).collectAsList();
      assertEquals(2, evals.size(), "v" + v + ": one row per sample of the validation query: " + evals);
      for (Row e : evals) {
        assertEquals("v1", e.getAs(Cols.QUERY_ID));
        assertEquals("djl", e.getAs(arbor.tables.Eval.POLICY));
      }
      assertEquals(Set.of(v), w.read(Table.ROLLOUT_NODES).where(col(Cols.RUN_ID).equalTo(evalRun).and(col(Cols.STEP).equalTo(v)))
          .select(Cols.POLICY_VERSION).collectAsList().stream().map(r -> r.getLong(0)).collect(Collectors.toSet()),
          "the evaluation of step " + v + " rolls out the version just written");
    }
    assertEquals(2, w.read(Table.EVAL).where(col(Cols.RUN_ID).equalTo(RUN)).select(Cols.STEP).distinct().count());
    assertTrue(console.contains("kl ") && console.contains("children/root") && console.contains("rollouts "), console);
    for (Table t : STEP_TABLES) {
      for (long s = 0; s < 2; s++) assertTrue(rows(w, t, s) > 0, t.tableName + " has no rows for step " + s);
    }
    CheckpointStore store = new CheckpointStore(spark, w, straight.checkpoints());
    assertEquals(List.of(0L, 1L, 2L), store.steps(RUN, TableVersion.LATEST));
    Set<String> names = w.read(Table.METRICS).where(col(Cols.STEP).equalTo(1)).select(Metric.NAME).collectAsList()
        .stream().map(r -> r.getString(0)).collect(Collectors.toSet());
    for (String n : List.of("judge.reward_mean", "learner.kl", "learner.clip_fraction", "rollouts.children_per_root",
        "train.seconds_rollouts", "train.seconds_learner", "train.policy_version")) {
      assertTrue(names.contains(n), n + " not in " + names);
    }
    // Step 0's metrics replaced its own figures, not sft's (they were all lost before).
    assertEquals(1, w.read(Table.METRICS).where(col(Cols.RUN_ID).equalTo(RUN).and(col(Cols.STEP).equalTo(0))
        .and(col(Metric.NAME).equalTo(TrainFixture.SFT_METRIC))).count(), "sft's loss survives the steps");
    assertEquals(Set.of(1L), w.read(Table.ROLLOUT_NODES).where(col(Cols.STEP).equalTo(1)).select(Cols.POLICY_VERSION)
        .collectAsList().stream().map(r -> r.getLong(0)).collect(Collectors.toSet()), "step 1 rolls out version 1");

    // Interrupted: a driver that crashes in step 2 after writing its rewards, then a resume.
    ArborConfig both = TrainFixture.prepare(root);
    int[] samplesWrites = {0};
    var crash = assertThrows(IllegalStateException.class, () -> train(both, t -> {
      if (t == Table.SAMPLES && ++samplesWrites[0] == 2) {
        throw new IllegalStateException("simulated crash before the samples of step 2");
      }
    }, "--run", RUN));
    assertTrue(crash.getMessage().contains("simulated"), crash.getMessage());
    var refused = assertThrows(UsageError.class, () -> train(both, t -> {}, "--run", RUN));
    assertTrue(refused.getMessage().contains("--resume"), refused.getMessage());
    Warehouse r = new Warehouse(spark, both.warehouse());
    assertTrue(rows(r, Table.REWARDS, 1) > 0, "the crashed step wrote its rewards");
    CheckpointStore resumedStore = new CheckpointStore(spark, r, both.checkpoints());
    assertEquals(List.of(0L, 1L), resumedStore.steps(RUN, TableVersion.LATEST));
    train(both, t -> {}, "--run", RUN, "--resume");
    assertEquals(List.of(0L, 1L, 2L), resumedStore.steps(RUN, TableVersion.LATEST));
    for (Table t : STEP_TABLES) {
      assertEquals(0, duplicates(r, t), "duplicate keys in " + t.tableName);
      for (long s = 0; s < 2; s++) assertEquals(rows(w, t, s), rows(r, t, s), t.tableName + " rows of step " + s);
    }

    // The two runs' rollouts draw the same tokens and record the same log-probabilities bit for
    // bit, although their sequences met other batches: the engine's numerics are
    // batch-invariant. The step-2 weights then agree.
    List<Row> samplesStraight = sortedSamples(w);
    List<Row> samplesResumed = sortedSamples(r);
    assertEquals(samplesStraight.size(), samplesResumed.size());
    double lpDiff = 0;
    int mismatched = 0;
    for (int i = 0; i < samplesStraight.size(); i++) {
      Row x = samplesStraight.get(i);
      Row y = samplesResumed.get(i);
      for (int c = 0; c < 3; c++) assertEquals(x.get(c), y.get(c), "sample key");
      assertEquals(x.getList(3), y.getList(3), "the tokens of sample " + x.get(1) + " turn " + x.get(2));
      List<Float> lx = x.getList(4);
      List<Float> ly = y.getList(4);
      for (int j = 0; j < lx.size(); j++) lpDiff = Math.max(lpDiff, Math.abs(lx.get(j) - ly.get(j)));
      mismatched += lx.equals(ly) ? 0 : 1;
    }
    System.out.printf("train resume: max |log-probability difference| between the runs' samples = %g,"
        + " %d of %d samples not bit-identical%n", lpDiff, mismatched, samplesStraight.size());
    assertEquals(0, mismatched, "samples whose log-probabilities differ (max by " + lpDiff + ")");
    Checkpoint a = store.load(RUN, 2);
    Checkpoint b = resumedStore.load(RUN, 2);
    Checkpoint start = store.load(RUN, 0);
    double maxDiff = 0;
    double moved = 0;
    for (int i = 0; i < a.weights().size(); i++) {
      HostTensor x = a.weights().get(i);
      float[] va = x.values();
      float[] vb = b.weight(x.name()).values();
      float[] v0 = start.weight(x.name()).values();
      for (int j = 0; j < va.length; j++) {
        maxDiff = Math.max(maxDiff, Math.abs(va[j] - vb[j]));
        moved = Math.max(moved, Math.abs(va[j] - v0[j]));
      }
    }
    System.out.printf("train resume: max |uninterrupted - resumed| = %g at step 2; the weights moved up to %g%n", maxDiff, moved);
    // The tiny random model finds no evidence, so every group's rewards are flat (advantage 0) and
    // the two updates are AdamW's weight decay alone; ExactResumeTest covers the moments.
    assertTrue(moved > 0, "two steps should move the weights: " + moved);
    assertTrue(maxDiff <= 1e-6, "the resumed run's step-2 weights differ by " + maxDiff);
  }

  private static List<Row> sortedSamples(Warehouse w) {
    List<Row> out = new ArrayList<>(w.read(Table.SAMPLES).select(Cols.STEP, Cols.NODE_ID, Cols.TURN, Cols.RESPONSE_IDS,
        Cols.LOGPROBS, "advantage").collectAsList());
    out.sort(java.util.Comparator.comparing(Row::toString));
    return out;
  }
}
