package arbor.tables;

import java.sql.Timestamp;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A row of {@code teacher_runs}: which teacher rollouts were made for which sft data and teacher,
 * so that a later sft with the same ones reuses them instead of running the teacher again. Key:
 * {@code trace_key}, a hash of {@code dataset} and {@code settings}; the traces themselves are the
 * rollout, turn and reward rows of {@code teacher_run}, step 0.
 *
 * @param traceKey hex SHA-256 of the dataset and the settings
 * @param teacherRun the run id under which the teacher's trees are written
 * @param dataset hex SHA-256 of the sft queries, their groups and their papers' texts
 * @param settings what of the teacher's settings the key covers, as readable text
 * @param trees the teacher's trees, kept or not
 * @param at when they were made
 */
public record TeacherRun(String traceKey, String teacherRun, String dataset, String settings, long trees, Timestamp at) {
  public static final String TRACE_KEY = "trace_key";
  public static final String TEACHER_RUN = "teacher_run";
  public static final String DATASET = "dataset";
  public static final String SETTINGS = "settings";
  public static final String TREES = "trees";
  public static final String AT = "at";

  public static final StructType SCHEMA = new StructType()
      .add(TRACE_KEY, DataTypes.StringType, false)
      .add(TEACHER_RUN, DataTypes.StringType, false)
      .add(DATASET, DataTypes.StringType, false)
      .add(SETTINGS, DataTypes.StringType, false)
      .add(TREES, DataTypes.LongType, false)
      .add(AT, DataTypes.TimestampType, false);

  public Row toRow() {
    return RowFactory.create(traceKey, teacherRun, dataset, settings, trees, at);
  }

  public static TeacherRun of(Row row) {
    return new TeacherRun(row.getAs(TRACE_KEY), row.getAs(TEACHER_RUN), row.getAs(DATASET), row.getAs(SETTINGS),
        row.<Long>getAs(TREES), row.getAs(AT));
  }
}
