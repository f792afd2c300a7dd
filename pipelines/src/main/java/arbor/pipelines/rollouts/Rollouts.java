package arbor.pipelines.rollouts;

import static arbor.tables.Cols.*;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.posexplode;
import static org.apache.spark.sql.functions.sort_array;
import static org.apache.spark.sql.functions.struct;

import arbor.conf.ApiKeys;
import arbor.conf.ArborConfig;
import arbor.policy.holder.CheckpointSource;
import arbor.pipelines.progress.TaskCount;
import arbor.progress.Progress;
import arbor.rlm.runtime.RunTrees;
import arbor.rlm.runtime.TreeRows;
import arbor.tables.Papers;
import arbor.tables.RolloutNode;
import arbor.tables.RolloutTurn;
import arbor.pipelines.warehouse.Warehouse;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The rollout stage of a training step: the step's queries in, their rollout trees out, {@code G}
 * per query ({@code rollouts.samples}), run on the executors by the configured policy
 * ({@code rollouts.policy}) at the step's policy version. Each query's context is its group's
 * papers (their noisy text, in the group's order). The stage is its configuration plus three
 * optional parts (later policy versions, endpoint keys, a progress line); its input is a step's
 * {@link Tasks}, and nothing runs until the trees are written:
 *
 * <pre>{@code
 * Rollouts rollouts = new Rollouts(config).withCheckpoints(store.source()).withKeys(keys);
 * Rollouts.Tasks tasks = rollouts.tasks(queries, groups, papers, Rollouts.Step.of("run-1", 3, 2));
 * Dataset<Row> trees = rollouts.transform(tasks);                    // lazy
 * RolloutWriter.Written w = rollouts.write(warehouse, tasks);        // runs them and writes the tables
 * }</pre>
 *
 * <p>A tree row ({@link TreeRows#TREE}) nests the tree's {@code rollout_nodes} and
 * {@code rollout_turns} rows; {@link #nodes} and {@link #turns} unnest them. Seeds derive from
 * (seed run, seed step, query, sample), so a rerun of a step draws the same seeds.
 */
public final class Rollouts {
  /** The columns the stage reads from {@code queries}, {@code paper_groups} and {@code papers}. */
  public static final String GROUP_ID = "group_id";
  public static final String GROUP_PAPER_IDS = "paper_ids";
  public static final String PAPER_ID = Papers.PAPER_ID;
  public static final String NOISY_TEXT = Papers.NOISY_TEXT;

  /**
   * Which trees a step runs: they are written under ({@code runId}, {@code step}), rolled out by
   * version {@code policyVersion} of run {@code policyRun}'s checkpoints (an evaluation writes its
   * trees under a run of its own and rolls out the training run's weights), with the seeds of
   * ({@code seedRun}, {@code seedStep}): runs that share them draw the same seed for the same
   * query and sample (common random numbers), whichever policy rolls them out.
   */
  public record Step(String runId, long step, String policyRun, long policyVersion, String seedRun, long seedStep) {
    /** Step {@code step} of run {@code runId}, rolled out by its own version {@code policyVersion}, with its own seeds. */
    public static Step of(String runId, long step, long policyVersion) {
      return new Step(runId, step, runId, policyVersion, runId, step);
    }

    public Step rollingOut(String run, long version) {
      return new Step(runId, step, run, version, seedRun, seedStep);
    }

    public Step seededAs(String run, long atStep) {
      return new Step(runId, step, policyRun, policyVersion, run, atStep);
    }
  }

  /**
   * A step's trees to run ({@link TreeRows#TASK} rows): {@code samples} of each of
   * {@code queries} queries, counted once where they were made.
   */
  public record Tasks(Step step, Dataset<Row> rows, long queries, int samples) {
    public long count() {
      return queries * samples;
    }

    /** Only the first {@code n} samples of each query. */
    public Tasks firstSamples(int n) {
      return n >= samples ? this : new Tasks(step, rows.where(col(SAMPLE).lt(n)), queries, n);
    }
  }

  private record Printing(String label, Consumer<String> console) {}

  private final ArborConfig config;
  private final CheckpointSource checkpoints;
  private final ApiKeys keys;
  private final RunTrees.TaskProbe probe;
  private final Printing progress;

  /** A stage whose djl policy serves version 0 (the configured model folder) only, with no endpoint key. */
  public Rollouts(ArborConfig config) {
    this(config, null, ApiKeys.NONE, RunTrees.TaskProbe.NONE, null);
  }

  private Rollouts(ArborConfig config, CheckpointSource checkpoints, ApiKeys keys, RunTrees.TaskProbe probe,
      Printing progress) {
    this.config = config;
    this.checkpoints = checkpoints;
    this.keys = keys;
    this.probe = probe;
    this.progress = progress;
  }

  /** Serves the djl policy's versions above 0. */
  public Rollouts withCheckpoints(CheckpointSource source) {
    return new Rollouts(config, source, keys, probe, progress);
  }

  /** The keys of an endpoint policy (the job reads them: {@link ApiKeys#read}). */
  public Rollouts withKeys(ApiKeys apiKeys) {
    return new Rollouts(config, checkpoints, apiKeys, probe, progress);
  }

  /** Hears each tree end on the executors. */
  public Rollouts withProbe(RunTrees.TaskProbe taskProbe) {
    return new Rollouts(config, checkpoints, keys, taskProbe, progress);
  }

  /**
   * While {@link #write} runs, prints on {@code console}, every train.progress_seconds and at the
   * end, how many of the trees have ended under {@code label}.
   */
  public Rollouts withProgress(String label, Consumer<String> console) {
    return new Rollouts(config, checkpoints, keys, probe, new Printing(label, console));
  }

  /**
   * The step's trees to run: every query of {@code queries} (query_id, group_id, question) with
   * the noisy text of its group's papers, once per sample. Two small jobs run here, on the query
   * tables only: one refuses queries whose group has no paper, one counts the trees.
   */
  public Tasks tasks(Dataset<Row> queries, Dataset<Row> groups, Dataset<Row> papers, Step s) {
    Dataset<Row> members = groups.select(col(GROUP_ID), posexplode(col(GROUP_PAPER_IDS)).as(new String[] {"pos", PAPER_ID}))
        .join(papers.select(col(PAPER_ID), col(NOISY_TEXT)), PAPER_ID);
    Dataset<Row> contexts = members.groupBy(GROUP_ID)
        .agg(sort_array(collect_list(struct(col("pos"), col(PAPER_ID), col(NOISY_TEXT)))).as("papers"))
        .select(col(GROUP_ID), col("papers." + PAPER_ID).as(TreeRows.PAPER_IDS), col("papers." + NOISY_TEXT).as(TreeRows.PAPER_TEXTS));
    Dataset<Row> withPapers = queries.select(col(QUERY_ID), col(GROUP_ID), col(TreeRows.QUESTION))
        .join(contexts, new String[] {GROUP_ID}, "left");
    List<Row> orphans = withPapers.filter(col(TreeRows.PAPER_IDS).isNull()).select(QUERY_ID, GROUP_ID).limit(5).collectAsList();
    if (!orphans.isEmpty()) {
      throw new IllegalArgumentException("rollouts: queries without any paper of their group in papers: " + orphans
          + "; run synthesize over the same warehouse, or drop those queries");
    }
    SparkSession spark = queries.sparkSession();
    Dataset<Row> samples = spark.range(config.rollouts().samples()).select(col("id").cast("int").as(SAMPLE));
    Dataset<Row> rows = withPapers.crossJoin(samples).select(lit(s.runId()).as(RUN_ID), lit(s.step()).as(STEP), col(QUERY_ID),
        col(SAMPLE), col(TreeRows.QUESTION), col(TreeRows.PAPER_IDS), col(TreeRows.PAPER_TEXTS),
        lit(s.policyVersion()).as(POLICY_VERSION), lit(s.policyRun()).as(TreeRows.POLICY_RUN),
        lit(s.seedRun()).as(TreeRows.SEED_RUN), lit(s.seedStep()).as(TreeRows.SEED_STEP));
    return new Tasks(s, rows, queries.count(), config.rollouts().samples());
  }

  /**
   * The trees of {@code tasks} ({@link TreeRows#TREE}), lazily: they run when the result is
   * written. {@code rollouts.trees_per_task} trees go to a Spark task; the samples of a query stay
   * together (their prompts share a prefix), and a task's trees are fixed by the shuffle before
   * any runs, so a retried task runs exactly the trees of the failed attempt.
   */
  public Dataset<Row> transform(Tasks tasks) {
    return transform(tasks, probe);
  }

  private Dataset<Row> transform(Tasks tasks, RunTrees.TaskProbe treeEnded) {
    int partitions = (int) Math.max(1, (tasks.count() + config.rollouts().treesPerTask() - 1) / config.rollouts().treesPerTask());
    return tasks.rows().repartitionByRange(partitions, col(QUERY_ID), col(SAMPLE))
        .mapPartitions(new RunTrees(config, checkpoints, keys, treeEnded), Encoders.row(TreeRows.TREE));
  }

  /** Runs {@code tasks} and writes their trees to {@code warehouse} under their run and step. */
  public RolloutWriter.Written write(Warehouse warehouse, Tasks tasks) {
    RolloutWriter writer = new RolloutWriter(warehouse, config.rollouts());
    if (progress == null) return writer.write(tasks.step().runId(), tasks.step().step(), transform(tasks));
    TaskCount ended = TaskCount.register(SparkSession.active(), progress.label());
    RunTrees.TaskProbe counted = ended.trees();
    RunTrees.TaskProbe heard = probe;
    RunTrees.TaskProbe both = (partition, attempt, n) -> {
      heard.treeEnded(partition, attempt, n);
      counted.treeEnded(partition, attempt, n);
    };
    try (var p = Progress.start(progress.label(), "trees", ended::done, tasks::count,
        config.train().progressSeconds(), progress.console())) {
      return writer.write(tasks.step().runId(), tasks.step().step(), transform(tasks, both));
    }
  }

  /** The {@code rollout_nodes} rows of tree rows, in the table's schema. */
  public static Dataset<Row> nodes(Dataset<Row> trees) {
    return unnest(trees, TreeRows.NODES, RolloutNode.SCHEMA.fieldNames());
  }

  /** The {@code rollout_turns} rows of tree rows, in the table's schema. */
  public static Dataset<Row> turns(Dataset<Row> trees) {
    return unnest(trees, TreeRows.TURNS, RolloutTurn.SCHEMA.fieldNames());
  }

  private static Dataset<Row> unnest(Dataset<Row> trees, String column, String[] fields) {
    Dataset<Row> rows = trees.select(explode(col(column)).as("r"));
    return rows.select(java.util.Arrays.stream(fields).map(f -> col("r." + f).as(f)).toArray(org.apache.spark.sql.Column[]::new));
  }
}
