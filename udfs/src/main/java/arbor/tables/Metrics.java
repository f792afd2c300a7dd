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

  public static final StructType SCHEMA = new StructType()
      .add(RUN_ID, DataTypes.StringType, false)
      .add(STEP, DataTypes.LongType, false)
      .add(NAME, DataTypes.StringType, false)
      .add(VALUE, DataTypes.DoubleType, false)
      .add(AT, DataTypes.TimestampType, false);
}
