package arbor.tables;

import static arbor.tables.Cols.*;

import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code metrics}: named numbers per step (rollout, judge, advantage and learner figures). Key:
 * run_id, step, name. Names are dotted by phase: {@code rollouts.children_per_root},
 * {@code judge.reward_mean}, {@code advantages.zero_variance_groups}, {@code learner.kl}, ...
 */
public final class Metrics {
  private Metrics() {}

  public static final String NAME = "name";
  public static final String VALUE = "value";
  public static final String AT = "at";

  /** The prefix of the figures sft files under its run's step 0, beside that step's own. */
  public static final String SFT_PREFIX = "sft.";

  /** The rows sft owns: its run's step-0 figures named {@value #SFT_PREFIX}*. */
  public static String sftRows(String runId) {
    return ofStep(runId, 0) + " AND " + NAME + " LIKE '" + SFT_PREFIX + "%'";
  }

  /** The rows a training step owns: its figures, not sft's (which share step 0). */
  public static String stepRows(String runId, long step) {
    return ofStep(runId, step) + " AND " + NAME + " NOT LIKE '" + SFT_PREFIX + "%'";
  }

  private static String ofStep(String runId, long step) {
    return RUN_ID + " = '" + runId.replace("'", "''") + "' AND " + STEP + " = " + step;
  }

  public static final StructType SCHEMA = new StructType()
      .add(RUN_ID, DataTypes.StringType, false)
      .add(STEP, DataTypes.LongType, false)
      .add(NAME, DataTypes.StringType, false)
      .add(VALUE, DataTypes.DoubleType, false)
      .add(AT, DataTypes.TimestampType, false);
}
