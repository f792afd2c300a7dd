package arbor.pipelines.rollouts;

import static arbor.tables.Cols.*;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.posexplode;
import static org.apache.spark.sql.functions.sort_array;
import static org.apache.spark.sql.functions.struct;

import arbor.conf.ArborConfig;
import arbor.policy.holder.CheckpointSource;
import arbor.progress.Progress;
import arbor.pipelines.progress.TaskCount;
import arbor.rlm.runtime.RunTrees;
import arbor.rlm.runtime.TreeRows;
import arbor.tables.RolloutNodes;
import arbor.tables.RolloutTurns;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The rollout stage of a training step: the step's queries in, their rollout trees out, {@code G}
 * per query ({@code rollouts.samples}), run on the executors by the configured policy
 * ({@code rollouts.policy}) at the step's policy version. Each query's context is its group's
 * papers (their noisy text, in the group's order). Nothing runs until the result is written:
 *
 * <pre>{@code
 * Rollouts rollouts = new Rollouts(config);
 * Dataset<Row> trees = rollouts.transform(queries, groups, papers, "run-1", 3, "run-1", 2);   // lazy
 * RolloutWriter.Written w = new RolloutWriter(warehouse, config.rollouts()).write("run-1", 3, trees);
 * // or, with the groups and papers of the warehouse:
 * RolloutWriter.Written w = rollouts.runStep(warehouse, queries, "run-1", 3, 2);
 * }</pre>
 *
 * <p>A tree row ({@link TreeRows#TREE}) nests the tree's {@code rollout_nodes} and
 * {@code rollout_turns} rows; {@link #nodes} and {@link #turns} unnest them. Seeds derive from
 * (run, step, query, sample), so a rerun of a step draws the same seeds.
 */
public final class Rollouts {
  /** The columns the stage reads from {@code queries}, {@code paper_groups} and {@code papers}. */
  public static final String GROUP_ID = "group_id";
  public static final String GROUP_PAPER_IDS = "paper_ids";
  public static final String PAPER_ID = "paper_id";
  public static final String NOISY_TEXT = "noisy_text";

  private final ArborConfig config;
  private final CheckpointSource checkpoints;
  private final RunTrees.TaskProbe probe;

  /** A stage whose djl policy serves version 0 (the configured model folder) only. */
  public Rollouts(ArborConfig config) {
    this(config, null, RunTrees.TaskProbe.NONE);
  }

  /**
   * @param checkpoints serves the djl policy's versions above 0 (null: none yet)
   * @param probe hears each tree end on the executors
   */
  public Rollouts(ArborConfig config, CheckpointSource checkpoints, RunTrees.TaskProbe probe) {
    this.config = config;
    this.checkpoints = checkpoints;
    this.probe = probe;
  }

  /**
   * The trees to run ({@link TreeRows#TASK}): every query of {@code queries} (query_id,
   * group_id, question) with the noisy text of its group's papers, once per sample. The policy
   * is version {@code policyVersion} of run {@code policyRun}'s checkpoints (an evaluation writes
   * its trees under a run id of its own and rolls out the training run's weights).
   */
  public Dataset<Row> tasks(Dataset<Row> queries, Dataset<Row> groups, Dataset<Row> papers, String runId,
      long step, String policyRun, long policyVersion) {
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
    return withPapers.crossJoin(samples).select(lit(runId).as(RUN_ID), lit(step).as(STEP), col(QUERY_ID), col(SAMPLE),
        col(TreeRows.QUESTION), col(TreeRows.PAPER_IDS), col(TreeRows.PAPER_TEXTS), lit(policyVersion).as(POLICY_VERSION),
        lit(policyRun).as(TreeRows.POLICY_RUN), lit(runId).as(TreeRows.SEED_RUN), lit(step).as(TreeRows.SEED_STEP));
  }

  /**
   * {@code tasks} drawing the seeds of ({@code seedRun}, {@code seedStep}) instead of their own
   * run and step: runs that share a key draw the same seed for the same query and sample
   * (common random numbers), whichever policy rolls them out.
   */
  public static Dataset<Row> seededAs(Dataset<Row> tasks, String seedRun, long seedStep) {
    return tasks.withColumn(TreeRows.SEED_RUN, lit(seedRun)).withColumn(TreeRows.SEED_STEP, lit(seedStep));
  }

  /** The step's trees ({@link TreeRows#TREE}), lazily: they run when the result is written. */
  public Dataset<Row> transform(Dataset<Row> queries, Dataset<Row> groups, Dataset<Row> papers, String runId,
      long step, String policyRun, long policyVersion) {
    return run(tasks(queries, groups, papers, runId, step, policyRun, policyVersion));
  }

  /**
   * Runs {@link TreeRows#TASK} rows, {@code rollouts.trees_per_task} to a Spark task. The samples
   * of a query stay together (their prompts share a prefix), and a task's trees are fixed by the
   * shuffle before any runs, so a retried task runs exactly the trees of the failed attempt.
   */
  public Dataset<Row> run(Dataset<Row> tasks) {
    long n = tasks.count();
    int partitions = (int) Math.max(1, (n + config.rollouts().treesPerTask() - 1) / config.rollouts().treesPerTask());
    return tasks.repartitionByRange(partitions, col(QUERY_ID), col(SAMPLE))
        .mapPartitions(new RunTrees(config, checkpoints, probe), Encoders.row(TreeRows.TREE));
  }

  /** The trees of one step, with the groups and papers of {@code warehouse}, written there. */
  public RolloutWriter.Written runStep(Warehouse warehouse, Dataset<Row> queries, String runId, long step,
      long policyVersion) {
    return runStep(warehouse, queries, warehouse.read(Table.PAPER_GROUPS), warehouse.read(Table.PAPERS), runId, step,
        policyVersion);
  }

  /** The trees of one step over the given groups and papers, written to {@code warehouse}. */
  public RolloutWriter.Written runStep(Warehouse warehouse, Dataset<Row> queries, Dataset<Row> groups,
      Dataset<Row> papers, String runId, long step, long policyVersion) {
    return runStep(warehouse, queries, groups, papers, runId, step, runId, policyVersion);
  }

  /** As above, rolling out version {@code policyVersion} of run {@code policyRun}. */
  public RolloutWriter.Written runStep(Warehouse warehouse, Dataset<Row> queries, Dataset<Row> groups,
      Dataset<Row> papers, String runId, long step, String policyRun, long policyVersion) {
    return write(warehouse, runId, step, tasks(queries, groups, papers, runId, step, policyRun, policyVersion));
  }

  /**
   * Writes the trees of the tasks {@code tasks} makes with a new Rollouts (one whose Spark tasks
   * count the trees they end), printing on {@code console}, every train.progress_seconds and at
   * the end, how many of the {@code trees} have ended under {@code label}.
   */
  public static RolloutWriter.Written writeCounted(ArborConfig config, CheckpointSource checkpoints,
      Warehouse warehouse, String runId, long step, Function<Rollouts, Dataset<Row>> tasks, long trees,
      String label, Consumer<String> console) {
    TaskCount ended = TaskCount.register(SparkSession.active(), label);
    Rollouts rollouts = new Rollouts(config, checkpoints, ended.trees());
    try (var p = Progress.start(label, "trees", ended::done, () -> trees, config.train().progressSeconds(), console)) {
      return rollouts.write(warehouse, runId, step, tasks.apply(rollouts));
    }
  }

  /** Runs the tasks of one run and step and writes their trees to {@code warehouse}. */
  public RolloutWriter.Written write(Warehouse warehouse, String runId, long step, Dataset<Row> tasks) {
    return new RolloutWriter(warehouse, config.rollouts()).write(runId, step, run(tasks));
  }

  /** The {@code rollout_nodes} rows of tree rows, in the table's schema. */
  public static Dataset<Row> nodes(Dataset<Row> trees) {
    return unnest(trees, TreeRows.NODES, RolloutNodes.SCHEMA.fieldNames());
  }

  /** The {@code rollout_turns} rows of tree rows, in the table's schema. */
  public static Dataset<Row> turns(Dataset<Row> trees) {
    return unnest(trees, TreeRows.TURNS, RolloutTurns.SCHEMA.fieldNames());
  }

  private static Dataset<Row> unnest(Dataset<Row> trees, String column, String[] fields) {
    Dataset<Row> rows = trees.select(explode(col(column)).as("r"));
    return rows.select(java.util.Arrays.stream(fields).map(f -> col("r." + f).as(f)).toArray(org.apache.spark.sql.Column[]::new));
  }
}
