package arbor.tables;

import static arbor.tables.Cols.*;

import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code rewards}: one row per root (children are never judged). Key: run_id, step, node_id.
 * {@code reward} is null unless {@code status} is ok: a judge that failed after its retries, or a
 * tree that ended in an infrastructure failure, is recorded as such and is never a zero reward.
 */
public final class Rewards {
  private Rewards() {}

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
}
