package arbor.e2e;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;

import arbor.conf.ArborConfig;
import arbor.jobs.cli.JobContext;
import arbor.jobs.conf.ConfigLoader;
import arbor.jobs.train.TrainJob;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.files.HostTensor;
import arbor.rlm.runtime.SharedRuntimes;
import arbor.synthesis.Queries;
import arbor.tables.Cols;
import arbor.tables.Metric;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;

/**
 * The {@code train} tests' fixture: the tiny djl student on the tiny corpus, two queries x two
 * samples per step, and the one uninterrupted two-step run that every interrupted run is
 * compared with ({@link #straight()}), made once per build and shared by the test classes.
 */
final class TrainFixture {
  private TrainFixture() {}

  static final String RUN = "r";
  static final long STEPS = 2;
  /** A metric sft writes under the run's step 0, written into every prepared warehouse. */
  static final String SFT_METRIC = "sft.loss.epoch_1";
  /** The tables a step writes rows of (the checkpoint aside). */
  static final List<Table> STEP_TABLES = List.of(Table.ROLLOUT_NODES, Table.ROLLOUT_TURNS, Table.REWARDS,
      Table.SAMPLES, Table.METRICS);

  /**
   * The configuration of a run over {@code warehouse}, as {@code --set key=value} settings (a
   * driver in a JVM of its own gets the same list). Cells run in sandbox workers, as in
   * production: a killed driver's workers are part of what the kill tests check.
   */
  static List<String> settings(Path warehouse, Path model) {
    return List.of("warehouse=" + warehouse, "rlm.prompt_dir=" + TestEnv.REPO.resolve("conf/prompts"),
        "rollouts.trees_per_task=4", "sandbox.workers=1", "sandbox.worker_heap_mb=768",
        "sandbox.jvm_options=[\"-XX:TieredStopAtLevel=1\"]", "rollouts.policy=djl", "rollouts.sandbox=workers",
        "policy.djl.model_dir=" + model, "policy.djl.sampling.max_new_tokens=12", "rlm.max_turns=2",
        "rollouts.samples=2", "rlm.prompts=reduced", "train.queries_per_step=2", "train.steps=" + STEPS,
        "train.progress_seconds=5",
        // A large lr and decay, so that two steps move the tiny model's weights past float noise.
        "learner.lr=1e-3", "learner.weight_decay=1.0");
  }

  static ArborConfig config(Path warehouse, Path model) {
    return ConfigLoader.load(List.of(), settings(warehouse, model));
  }

  /** A fresh folder with the tiny student and a warehouse of the tiny corpus, its queries in the train split. */
  static ArborConfig prepare(Path dir) throws IOException {
    arbor.jobs.cli.FileTrees.delete(dir);
    Path model = TinyCorpus.student(dir.resolve("tiny-model"));
    ArborConfig config = config(dir.resolve("warehouse"), model);
    SparkSession spark = TestEnv.spark();
    Warehouse w = new Warehouse(spark, config.warehouse());
    TinyCorpus corpus = TinyCorpus.of(spark);
    corpus.papers().write().format("delta").save(w.path(Table.PAPERS));
    corpus.groups().write().format("delta").save(w.path(Table.PAPER_GROUPS));
    corpus.queries().withColumn(Queries.TIER, lit("mid-range")).withColumn(Queries.SPLIT, lit("train"))
        .write().format("delta").save(w.path(Table.QUERIES));
    // What sft leaves under the run's step 0 (its loss per epoch): the steps must keep it.
    w.replaceWhere(Table.METRICS, Metric.sftRows(RUN), spark.createDataFrame(
        List.of(RowFactory.create(RUN, 0L, SFT_METRIC, 1.5, new Timestamp(0))), Metric.SCHEMA));
    return config;
  }

  /**
   * The uninterrupted run's configuration: it also evaluates, before step 1 and after step 2
   * ({@code train.eval_every = 2}), on the one validation query {@link #straight()} adds (the
   * interrupted runs' warehouses have none and train without evaluation; evaluation writes no
   * row of the run's own steps, so their tables still compare).
   */
  static ArborConfig straightConfig(Path dir) {
    List<String> settings = new ArrayList<>(settings(dir.resolve("warehouse"), dir.resolve("tiny-model")));
    settings.add("train.eval_every=2");
    return ConfigLoader.load(List.of(), settings);
  }

  /** Runs {@code arbor train} in-process, its exit code asserted 0; returns what it printed. */
  static String train(ArborConfig config, Consumer<Table> beforeWrite, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JobContext context = new JobContext("train", config, List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8))) {
      context.beforeEachWrite(beforeWrite);
      try {
        assertEquals(0, new TrainJob().run(context));
      } finally {
        System.out.print(out.toString(StandardCharsets.UTF_8));
        // A driver that ends takes its executors' runtime with it (and the next run, in another
        // warehouse, needs a model holder over its own checkpoints table).
        SharedRuntimes.closeAll();
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** The uninterrupted run: its configuration and what it printed. */
  record Straight(ArborConfig config, String console) {
    Warehouse warehouse() {
      return new Warehouse(TestEnv.spark(), config.warehouse());
    }
  }

  private static Straight straight;

  /**
   * The uninterrupted {@value #STEPS}-step run of run {@value #RUN}, made by whichever test JVM
   * asks first in this build and read by the others: the test classes run in two JVMs, and each
   * run costs a minute or more. "This build" is the {@code arbor.build} property Maven sets (its
   * start time), so a folder left by an earlier build, made by other code, is made again; a JVM
   * started without the property makes its own.
   */
  static synchronized Straight straight() throws Exception {
    if (straight != null) return straight;
    Path dir = TestEnv.WORK.resolve("train-straight");
    Files.createDirectories(TestEnv.WORK);
    String build = System.getProperty("arbor.build", "jvm-" + ProcessHandle.current().pid() + "-"
        + ProcessHandle.current().info().startInstant().map(Object::toString).orElse(""));
    try (FileChannel lock = FileChannel.open(TestEnv.WORK.resolve("train-straight.lock"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE); var held = lock.lock()) {
      Path done = dir.resolve(".complete");
      Path console = dir.resolve("console.txt");
      if (Files.isRegularFile(done) && Files.readString(done).equals(build)) {
        straight = new Straight(straightConfig(dir), Files.readString(console));
        System.out.println("train fixture: the uninterrupted run of build " + build + " is in " + dir);
        return straight;
      }
      prepare(dir);
      ArborConfig config = straightConfig(dir);
      Warehouse w = new Warehouse(TestEnv.spark(), config.warehouse());
      TinyCorpus.of(TestEnv.spark()).queries().where(col(Queries.QUERY_ID).equalTo("q1")).withColumn(Queries.QUERY_ID, lit("v1"))
          .withColumn(Queries.TIER, lit("mid-range")).withColumn(Queries.SPLIT, lit("validation"))
          .write().format("delta").mode("append").save(w.path(Table.QUERIES));
      String out = train(config, t -> {}, "--run", RUN);
      Files.writeString(console, out);
      Files.writeString(done, build);
      straight = new Straight(config, out);
      return straight;
    }
  }

  static long rows(Warehouse w, Table t, long step) {
    return w.read(t).where(col(Cols.RUN_ID).equalTo(RUN).and(col(Cols.STEP).equalTo(step))).count();
  }

  /** Keys that occur more than once in a table (a rerun that appended instead of replacing). */
  static long duplicates(Warehouse w, Table t) {
    return w.read(t).groupBy(t.keys.stream().map(k -> col(k)).toArray(Column[]::new))
        .count().where(col("count").gt(1)).count();
  }

  /** The largest element-wise difference between two checkpoints' weights, tensor by tensor name. */
  static double maxWeightDiff(Checkpoint a, Checkpoint b) {
    double max = 0;
    for (HostTensor x : a.weights()) {
      float[] va = x.values();
      float[] vb = b.weight(x.name()).values();
      if (va.length != vb.length) throw new AssertionError(x.name() + ": " + va.length + " vs " + vb.length + " elements");
      for (int j = 0; j < va.length; j++) max = Math.max(max, Math.abs(va[j] - vb[j]));
    }
    return max;
  }

  /** The names of every weight tensor, to check that two checkpoints hold the same set. */
  static List<String> names(Checkpoint c) {
    List<String> out = new ArrayList<>();
    c.weights().forEach(t -> out.add(t.name()));
    out.sort(null);
    return out;
  }
}
