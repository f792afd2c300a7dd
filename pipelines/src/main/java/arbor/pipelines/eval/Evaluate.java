package arbor.pipelines.eval;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import arbor.conf.ApiKeys;
import arbor.conf.ArborConfig;
import arbor.judge.JudgeSpec;
import arbor.pipelines.judge.Judge;
import arbor.pipelines.judge.References;
import arbor.pipelines.rollouts.Rollouts;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.policy.holder.CheckpointSource;
import arbor.synthesis.Queries;
import arbor.tables.Cols;
import arbor.tables.Eval;
import arbor.tables.Reward;
import arbor.tables.RolloutNode;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Evaluation of one policy on one split, in the training harness: the split's active queries
 * through {@link Rollouts} (under an eval run id of their own, so the trees never mix with a
 * training step's), the roots judged, one {@code eval} row per tree.
 *
 * <pre>{@code
 * Evaluate eval = new Evaluate(config, store.source(), ApiKeys.read(config, System.getenv()));
 * eval.evaluate(warehouse, "run-1", 4, 4, "validation");   // the run's checkpoint 4, djl
 * }</pre>
 *
 * <p>The rows of (run, step, policy, split) are replaced as a whole: a rerun leaves one copy.
 * The policy is the configuration's {@code rollouts.policy}; {@code rollouts.samples} trees run
 * per query.
 */
public final class Evaluate {
  /** What an evaluation wrote: its trees and where their rollout rows are. */
  public record Written(String evalRunId, long trees) {}

  private final ArborConfig config;
  private final CheckpointSource checkpoints;
  private final ApiKeys keys;
  private final Consumer<String> console;

  /**
   * @param checkpoints serves the djl policy's trained versions (null: the base model only)
   * @param keys the API keys of an endpoint judge or policy (read by the job)
   */
  public Evaluate(ArborConfig config, CheckpointSource checkpoints, ApiKeys keys) {
    this(config, checkpoints, keys, line -> {});
  }

  /** As above, with the rollouts' progress lines (every {@code train.progress_seconds}) on {@code console}. */
  public Evaluate(ArborConfig config, CheckpointSource checkpoints, ApiKeys keys, Consumer<String> console) {
    this.config = config;
    this.checkpoints = checkpoints;
    this.keys = keys;
    this.console = console;
  }

  /** The run id the evaluation's rollout and reward rows are written under. */
  public String evalRunId(String runId, String split) {
    return evalRunId(runId, config.rollouts().policy().key(), split);
  }

  /** The run id of the evaluation of {@code policy} (its key) on {@code split} of run {@code runId}. */
  public static String evalRunId(String runId, String policy, String split) {
    return runId + "-eval-" + policy + "-" + split;
  }

  /** The seed key of every evaluation on {@code split}: independent of the run, step and policy. */
  public static String seedKey(String split) {
    return "eval:" + split;
  }

  /**
   * Evaluates {@code rollouts.policy} at {@code policyVersion} on the active queries of
   * {@code split} and replaces the {@code eval} rows of (runId, step, policy, split).
   */
  public Written evaluate(Warehouse warehouse, String runId, long step, long policyVersion,
      String split) {
    Dataset<Row> queries = Queries.active(warehouse.read(Table.QUERIES))
        .where(col(Queries.SPLIT).equalTo(split)).cache();
    if (queries.isEmpty()) {
      throw new IllegalArgumentException("evaluation: the queries table has no active query in"
          + " split '" + split + "' (" + warehouse.path(Table.QUERIES) + "); run synthesize first");
    }
    String evalRun = evalRunId(runId, split);
    Dataset<Row> groups = warehouse.read(Table.PAPER_GROUPS);
    Dataset<Row> papers = warehouse.read(Table.PAPERS);
    // The eval run's trees roll out the training run's checkpoints, with seeds of the split's
    // own: every policy and checkpoint meets the same draws for a query and sample (common random
    // numbers), so that differences between them are not differences of luck.
    Rollouts rollouts = new Rollouts(config).withCheckpoints(checkpoints).withKeys(keys)
        .withProgress("eval " + split + " rollouts", console);
    rollouts.write(warehouse, rollouts.tasks(queries, groups, papers,
        Rollouts.Step.of(evalRun, step, policyVersion).rollingOut(runId, policyVersion).seededAs(seedKey(split), 0)));
    Dataset<Row> nodes = stepRows(warehouse, Table.ROLLOUT_NODES, evalRun, step).cache();
    Dataset<Row> references = References.of(queries, groups, papers);
    warehouse.replaceStep(Table.REWARDS, evalRun, step,
        new Judge(JudgeSpec.resolve(config.judge(), keys.byVariable())).transform(nodes, references));
    Dataset<Row> rewards = stepRows(warehouse, Table.REWARDS, evalRun, step);
    String policy = config.rollouts().policy().key();
    Dataset<Row> rows = rows(nodes, rewards, queries, runId, policy, split);
    warehouse.replaceWhere(Table.EVAL, Cols.RUN_ID + " = " + Warehouse.sqlString(runId) + " AND "
        + Cols.STEP + " = " + step + " AND " + Eval.POLICY + " = '" + policy + "' AND "
        + Eval.SPLIT + " = " + Warehouse.sqlString(split), rows);
    long trees = nodes.where(col(RolloutNode.PARENT_ID).isNull()).count();
    nodes.unpersist();
    queries.unpersist();
    return new Written(evalRun, trees);
  }

  /** One {@link Eval} row per tree of the eval run's nodes, under the training run's id. */
  static Dataset<Row> rows(Dataset<Row> nodes, Dataset<Row> rewards, Dataset<Row> queries,
      String runId, String policy, String split) {
    Dataset<Row> shape = nodes.groupBy(col(Cols.ROOT_ID))
        .agg(count("*").cast("int").as(Eval.NODES), max(col(RolloutNode.DEPTH)).as(Eval.DEPTH),
            sum(col(RolloutNode.GEN_TOKENS)).as(Eval.GEN_TOKENS),
            sum(when(col(RolloutNode.DEPTH).equalTo(1), 1).otherwise(0)).cast("int")
                .as(Eval.CHILDREN));
    Dataset<Row> roots = nodes.where(col(RolloutNode.PARENT_ID).isNull())
        .select(col(Cols.STEP), col(Cols.NODE_ID).as(Cols.ROOT_ID), col(Cols.QUERY_ID),
            col(Cols.SAMPLE), col(RolloutNode.LATENCY_MS),
            col(RolloutNode.STATUS).as("root_status"));
    Dataset<Row> judged = rewards.select(col(Cols.NODE_ID).as(Cols.ROOT_ID), col(Reward.REWARD),
        col(Reward.SPAN_F1), col(Reward.STATUS).as("judge_status"));
    Column status = when(col("judge_status").isNotNull().and(col("judge_status").notEqual(Reward.OK)),
        col("judge_status")).otherwise(col("root_status"));
    return roots.join(shape, Cols.ROOT_ID).join(judged, new String[] {Cols.ROOT_ID}, "left")
        .join(queries.select(col(Queries.QUERY_ID), col(Queries.TIER)), Cols.QUERY_ID)
        .select(lit(runId).as(Cols.RUN_ID), col(Cols.STEP), lit(policy).as(Eval.POLICY),
            lit(split).as(Eval.SPLIT), col(Cols.QUERY_ID), col(Cols.SAMPLE),
            coalesce(col(Queries.TIER), lit("unknown")).as(Eval.TIER), col(Eval.REWARD), col(Eval.SPAN_F1),
            col(RolloutNode.LATENCY_MS).as(Eval.LATENCY_MS), col(Eval.GEN_TOKENS).cast("long").as(Eval.GEN_TOKENS),
            col(Eval.CHILDREN), col(Eval.NODES), col(Eval.DEPTH), status.as(Eval.STATUS),
            current_timestamp().as(Eval.AT));
  }

  private static Dataset<Row> stepRows(Warehouse w, Table t, String runId, long step) {
    return w.read(t).where(col(Cols.RUN_ID).equalTo(runId).and(col(Cols.STEP).equalTo(step)));
  }
}
