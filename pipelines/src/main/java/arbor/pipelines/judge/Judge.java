package arbor.pipelines.judge;

import arbor.judge.JudgeRoots;
import arbor.judge.JudgeSpec;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.struct;

import arbor.tables.Cols;
import arbor.tables.Reward;
import arbor.tables.RolloutNode;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;

/**
 * The judge stage: the roots of a step's rollout trees in, one {@code rewards} row per root out.
 * Children are never judged. Each root is judged on the executors against its query's evidence
 * located in the noisy text of its group's papers; a tree that ended in an infrastructure failure
 * ({@link InfraFailure}) is recorded as {@code infra_failure} without a judge call, and a judge
 * that fails after its retries leaves a {@code judge_error} row: neither is a zero reward.
 */
public final class Judge {
  private final JudgeSpec spec;

  public Judge(JudgeSpec spec) {
    this.spec = spec;
  }

  /**
   * @param nodes {@code rollout_nodes} rows of the step (roots and children)
   * @param references {@link References#of} for the queries of those roots
   */
  public Dataset<Row> transform(Dataset<Row> nodes, Dataset<Row> references) {
    Dataset<Row> statuses = nodes.groupBy(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.ROOT_ID).as(Cols.NODE_ID))
        .agg(collect_list(col(RolloutNode.STATUS)).as(JudgeRoots.TREE_STATUSES));
    Dataset<Row> roots = nodes.where(col(RolloutNode.PARENT_ID).isNull())
        .join(statuses, new String[] {Cols.RUN_ID, Cols.STEP, Cols.NODE_ID})
        .select(col(Cols.QUERY_ID), struct(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID), col(Cols.SAMPLE),
            col(RolloutNode.FINAL_ANSWER), col(RolloutNode.STATUS), col(RolloutNode.POLICY), col(RolloutNode.ERROR),
            col(JudgeRoots.TREE_STATUSES)).as("root"));
    Dataset<Row> perQuery = roots.groupBy(Cols.QUERY_ID).agg(collect_list(col("root")).as(JudgeRoots.ROOTS));
    // A root whose query has no reference row still gets a row (a judge_error that says so).
    Dataset<Row> input = perQuery.join(references, perQuery.col(Cols.QUERY_ID).equalTo(references.col(Cols.QUERY_ID)), "left")
        .select(perQuery.col(Cols.QUERY_ID), col(JudgeRoots.QUESTION), col(JudgeRoots.EVIDENCE), col(JudgeRoots.PAPERS),
            col(JudgeRoots.ROOTS));
    // One task per executor core: left to adaptive execution, a step's few hundred small rows are
    // coalesced into one task, and every root is judged on one core of one executor.
    int tasks = nodes.sparkSession().sparkContext().defaultParallelism();
    return input.repartition(tasks).mapPartitions(new JudgeRoots(spec), Encoders.row(Reward.SCHEMA));
  }
}
