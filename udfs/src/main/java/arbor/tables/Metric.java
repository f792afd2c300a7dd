package arbor.tables;

import static arbor.tables.Cols.*;

import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A row of {@code metrics}: a named number of a run's step (rollout, judge, advantage and learner
 * figures). Key: run_id, step, name. Names are dotted by phase: {@code rollouts.children_per_root},
 * {@code judge.reward_mean}, {@code advantages.zero_variance_groups}, {@code learner.kl}, ...
 */
public record Metric(String runId, long step, String name, double value, Timestamp at) {

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

  public Row toRow() {
    return RowFactory.create(runId, step, name, value, at);
  }

  public static Metric of(Row row) {
    return new Metric(row.getAs(RUN_ID), row.<Long>getAs(STEP), row.getAs(NAME), row.<Double>getAs(VALUE),
        row.getAs(AT));
  }

  /** The rows of {@code figures} (name to value) under one step, stamped now. */
  public static List<Row> rows(String runId, long step, Map<String, Double> figures) {
    Timestamp at = new Timestamp(System.currentTimeMillis());
    List<Row> rows = new ArrayList<>();
    figures.forEach((name, value) -> rows.add(new Metric(runId, step, name, value, at).toRow()));
    return rows;
  }
}
