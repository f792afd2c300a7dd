package arbor.tables;

import static arbor.tables.Cols.*;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A row of {@code rewards}: one per root (children are never judged). Key: run_id, step, node_id.
 * {@code reward} is null unless {@code status} is ok: a judge that failed after its retries, or a
 * tree that ended in an infrastructure failure, is recorded as such and is never a zero reward.
 *
 * @param reward the judge's reward in [0, 1]; null unless ok
 * @param precision the judge's 1-10 precision score (or its embedded equivalent), as given
 * @param recall the same for recall
 * @param reasoning the judge's words, when it gives any
 * @param judge which judge: rubric or embedded
 * @param spanP character-span precision against the ground truth located in the paper text
 * @param spanR character-span recall
 * @param spanF1 their F1
 * @param status {@link #OK}, {@link #JUDGE_ERROR} or {@link #INFRA_FAILURE}
 * @param error what failed, when something did
 */
public record Reward(String runId, long step, String nodeId, String queryId, int sample, Double reward,
    Double precision, Double recall, String reasoning, String judge, Double spanP, Double spanR, Double spanF1,
    String status, String error) {

  public static final String REWARD = "reward";
  /** The judge's 1-10 scores (the rubric judge) or their embedded equivalents, as given. */
  public static final String PRECISION = "precision";
  public static final String RECALL = "recall";
  public static final String REASONING = "reasoning";
  /** Which judge: rubric or embedded. */
  public static final String JUDGE = "judge";
  /** Character-span metrics against the ground truth located in the paper text. */
  public static final String SPAN_P = "span_p";
  public static final String SPAN_R = "span_r";
  public static final String SPAN_F1 = "span_f1";
  /** ok, judge_error (the judge failed after its retries) or infra_failure (the tree's harness failed). */
  public static final String STATUS = "status";
  public static final String ERROR = "error";

  public static final String OK = "ok";
  public static final String JUDGE_ERROR = "judge_error";
  public static final String INFRA_FAILURE = "infra_failure";

  public static final StructType SCHEMA = new StructType()
      .add(RUN_ID, DataTypes.StringType, false)
      .add(STEP, DataTypes.LongType, false)
      .add(NODE_ID, DataTypes.StringType, false)
      .add(QUERY_ID, DataTypes.StringType, false)
      .add(SAMPLE, DataTypes.IntegerType, false)
      .add(REWARD, DataTypes.DoubleType, true)
      .add(PRECISION, DataTypes.DoubleType, true)
      .add(RECALL, DataTypes.DoubleType, true)
      .add(REASONING, DataTypes.StringType, true)
      .add(JUDGE, DataTypes.StringType, false)
      .add(SPAN_P, DataTypes.DoubleType, true)
      .add(SPAN_R, DataTypes.DoubleType, true)
      .add(SPAN_F1, DataTypes.DoubleType, true)
      .add(STATUS, DataTypes.StringType, false)
      .add(ERROR, DataTypes.StringType, true);

  /** A root that has no reward: {@code status} says why ({@link #JUDGE_ERROR} or {@link #INFRA_FAILURE}). */
  public static Reward failed(String runId, long step, String nodeId, String queryId, int sample, String judge,
      String status, String error) {
    return new Reward(runId, step, nodeId, queryId, sample, null, null, null, null, judge, null, null, null, status,
        error);
  }

  public Row toRow() {
    return RowFactory.create(runId, step, nodeId, queryId, sample, reward, precision, recall, reasoning, judge, spanP,
        spanR, spanF1, status, error);
  }

  public static Reward of(Row row) {
    return new Reward(row.getAs(RUN_ID), row.<Long>getAs(STEP), row.getAs(NODE_ID), row.getAs(QUERY_ID),
        row.<Integer>getAs(SAMPLE), row.getAs(REWARD), row.getAs(PRECISION), row.getAs(RECALL), row.getAs(REASONING),
        row.getAs(JUDGE), row.getAs(SPAN_P), row.getAs(SPAN_R), row.getAs(SPAN_F1), row.getAs(STATUS),
        row.getAs(ERROR));
  }
}
