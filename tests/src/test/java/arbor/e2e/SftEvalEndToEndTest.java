package arbor.e2e;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.checkpoints.CheckpointStore;
import arbor.conf.ConfigLoader;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.model.HfModelFolder;
import arbor.rlm.runtime.RlmRuntime;
import arbor.tables.Cols;
import arbor.tables.Eval;
import arbor.tables.Metrics;
import arbor.warehouse.Table;
import arbor.warehouse.Warehouse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The sft and eval jobs on a warehouse of two papers' groups: the scripted teacher's traces
 * teach a tiny byte-level student whose weights become step 0; the scripted policy is evaluated
 * on the validation split twice and leaves one copy of its rows, with a report folder.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SftEvalEndToEndTest {
  static final StructType QUERIES = TinyCorpus.QUERIES
      .add("tier", DataTypes.StringType).add("split", DataTypes.StringType);

  private Path root;
  private String warehouse;
  private Path model;

  @BeforeAll
  void tables() throws Exception {
    SparkSession spark = TestEnv.spark();
    root = TestEnv.WORK.resolve("sft-eval-e2e");
    arbor.jobs.FileTrees.delete(root);
    warehouse = root.resolve("warehouse").toString();
    Warehouse w = new Warehouse(spark, warehouse);
    spark.createDataFrame(List.of(RowFactory.create("mt", RolloutsEndToEndTest.MT),
        RowFactory.create("parser", RolloutsEndToEndTest.PARSER), RowFactory.create("fold", RolloutsEndToEndTest.FOLDING)),
        RolloutsEndToEndTest.PAPERS).write().format("delta").save(w.path(Table.PAPERS));
    spark.createDataFrame(List.of(RowFactory.create("g1", List.of("mt", "parser", "fold")),
        RowFactory.create("g2", List.of("parser"))), RolloutsEndToEndTest.GROUPS)
        .write().format("delta").save(w.path(Table.PAPER_GROUPS));
    List<Row> queries = new ArrayList<>();
    for (String split : List.of("sft", "validation")) {
      queries.add(RowFactory.create(split + "-q1", "g1", "Which training corpus do the systems train on?",
          List.of(RowFactory.create("mt", TinyCorpus.MT_DATA)), "mid-range", split));
      queries.add(RowFactory.create(split + "-q3", "g2", "Which treebank is the parser trained on?",
          List.of(RowFactory.create("parser", TinyCorpus.PARSER_DATA)), "singleton", split));
    }
    spark.createDataFrame(queries, QUERIES).write().format("delta").save(w.path(Table.QUERIES));
    model = root.resolve("tiny-model");
    TinyCorpus.student(model);
  }

  @AfterAll
  void close() {
    RlmRuntime.closeShared();
  }

  private String[] args(String job, String... rest) {
    List<String> all = new ArrayList<>(List.of(job));
    for (String s : List.of("warehouse=" + warehouse, "rlm.prompt_dir=" + TestEnv.REPO.resolve("conf/prompts"),
        "rollouts.sandbox=in_process", "rollouts.trees_per_task=4", "rollouts.samples=1", "sft.samples=1",
        "sft.epochs=1", "sft.lr=1e-3", "rlm.prompts=reduced", "sft.max_sample_tokens=2500", "policy.djl.model_dir=" + model)) {
      all.add("--set");
      all.add(s);
    }
    all.addAll(List.of(rest));
    return all.toArray(String[]::new);
  }

  @Test
  void sftWritesStepZeroAndCountsEveryTree() throws Exception {
    TestEnv.Run run = TestEnv.run(args("sft", "--run", "r1"));
    assertEquals(0, run.code(), run.out() + run.err());
    Matcher kept = Pattern.compile("kept (\\d+) of (\\d+) teacher trees").matcher(run.out());
    assertTrue(kept.find(), run.out());
    int total = Integer.parseInt(kept.group(2));
    assertEquals(2, total, "one tree per sft query");
    int dropped = 0;
    Matcher d = Pattern.compile("dropped (\\d+): ").matcher(run.out());
    while (d.find()) dropped += Integer.parseInt(d.group(1));
    assertEquals(total, Integer.parseInt(kept.group(1)) + dropped, run.out());

    SparkSession spark = TestEnv.spark();
    Warehouse w = new Warehouse(spark, warehouse);
    CheckpointStore store = new CheckpointStore(spark, w, ConfigLoader.load(List.of(), List.of()).checkpoints());
    assertEquals(0L, store.latest("r1").orElseThrow());
    Checkpoint c = store.load("r1", 0);
    assertTrue(c.files().containsKey(HfModelFolder.CONFIG) && c.files().containsKey(HfModelFolder.TOKENIZER),
        c.files().keySet().toString());
    // The weights moved from the student's folder: SFT took steps.
    try (var base = HfModelFolder.load(model, ai.djl.Device.cpu())) {
      float[] before = base.model().parameters().get(c.weights().getFirst().name()).toFloatArray();
      assertTrue(!java.util.Arrays.equals(before, c.weights().getFirst().values()), "SFT changed no weight");
    }
    Map<String, Double> metrics = new HashMap<>();
    for (Row m : w.read(Table.METRICS).where(col(Cols.RUN_ID).equalTo("r1")).collectAsList()) {
      metrics.put(m.getAs(Metrics.NAME), m.getAs(Metrics.VALUE));
    }
    assertEquals((double) total, metrics.get("sft.trees_kept") + metrics.get("sft.trees_dropped"));
    assertTrue(metrics.containsKey("sft.loss.epoch_1"), metrics.toString());

    // The student is evaluated from the run's checkpoint, though its trees are written under an
    // eval run id of their own.
    TestEnv.Run eval = TestEnv.run(args("eval", "--run", "r1", "--set", "rlm.max_turns=1",
        "--set", "policy.djl.sampling.max_new_tokens=8", "--report", root.resolve("report-r1").toString()));
    assertEquals(0, eval.code(), eval.out() + eval.err());
    List<Row> rows = w.read(Table.EVAL).where(col(Cols.RUN_ID).equalTo("r1")).collectAsList();
    assertEquals(2, rows.size(), "one row per validation tree: " + rows);
    for (Row r : rows) {
      assertEquals("djl", r.getAs(Eval.POLICY));
      assertEquals(0L, r.<Long>getAs(Cols.STEP));
    }
  }

  @Test
  void evalOfTheScriptedPolicyIsIdempotentAndWritesTheReport() throws Exception {
    Path report = root.resolve("report");
    for (int i = 0; i < 2; i++) {
      TestEnv.Run run = TestEnv.run(args("eval", "--run", "r2", "--policy", "scripted", "--report", report.toString()));
      assertEquals(0, run.code(), run.out() + run.err());
      assertTrue(run.out().contains("judge score"), run.out());
    }
    List<Row> rows = new Warehouse(TestEnv.spark(), warehouse).read(Table.EVAL)
        .where(col(Cols.RUN_ID).equalTo("r2")).collectAsList();
    assertEquals(2, rows.size(), "one row per tree after a rerun: " + rows);
    for (Row r : rows) {
      assertEquals("scripted", r.getAs(Eval.POLICY));
      assertEquals("validation", r.getAs(Eval.SPLIT));
      assertTrue(r.<Integer>getAs(Eval.NODES) >= 1);
    }
    for (String f : List.of("report.md", "reward.png", "kl.png", "tree_shape.png")) {
      assertTrue(Files.size(report.resolve(f)) > 0, f);
    }
    assertTrue(Files.readString(report.resolve("report.md")).contains("| scripted | validation |"));
  }
}
