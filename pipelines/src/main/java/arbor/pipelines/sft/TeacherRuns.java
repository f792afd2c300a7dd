package arbor.pipelines.sft;

import static org.apache.spark.sql.functions.col;

import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.tables.Cols;
import arbor.tables.RolloutNode;
import arbor.tables.TeacherRun;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * The {@code teacher_runs} table: teacher traces made once and found again by their
 * {@link TeacherKey}. An entry is trusted only while its run still holds as many trees as it
 * recorded; a run whose traces are about to be rewritten is forgotten first, so no entry ever
 * names traces made for another key.
 */
public final class TeacherRuns {
  private final SparkSession spark;
  private final Warehouse warehouse;

  public TeacherRuns(SparkSession spark, Warehouse warehouse) {
    this.spark = spark;
    this.warehouse = warehouse;
  }

  /** The run whose traces were made for {@code traceKey} and are all still there, if any. */
  public Optional<TeacherRun> find(String traceKey) {
    if (!warehouse.exists(Table.TEACHER_RUNS)) return Optional.empty();
    List<TeacherRun> found = warehouse.read(Table.TEACHER_RUNS).where(col(TeacherRun.TRACE_KEY).equalTo(traceKey))
        .collectAsList().stream().map(TeacherRun::of).toList();
    if (found.isEmpty() || !warehouse.exists(Table.ROLLOUT_NODES) || !warehouse.exists(Table.REWARDS)) {
      return Optional.empty();
    }
    TeacherRun run = found.getFirst();
    long roots = warehouse.read(Table.ROLLOUT_NODES)
        .where(col(Cols.RUN_ID).equalTo(run.teacherRun()).and(col(Cols.STEP).equalTo(0))
            .and(col(RolloutNode.PARENT_ID).isNull())).count();
    long judged = warehouse.read(Table.REWARDS)
        .where(col(Cols.RUN_ID).equalTo(run.teacherRun()).and(col(Cols.STEP).equalTo(0))).count();
    return roots == run.trees() && judged >= roots ? Optional.of(run) : Optional.empty();
  }

  /** Drops every entry naming {@code teacherRun}: its traces are about to be rewritten. */
  public void forget(String teacherRun) {
    if (!warehouse.exists(Table.TEACHER_RUNS)) return;
    warehouse.replaceWhere(Table.TEACHER_RUNS, TeacherRun.TEACHER_RUN + " = " + Warehouse.sqlString(teacherRun),
        spark.createDataFrame(List.of(), TeacherRun.SCHEMA));
  }

  /** Files {@code run} as the traces of its key, replacing any entry for that key. */
  public void record(TeacherRun run) {
    warehouse.replaceWhere(Table.TEACHER_RUNS, TeacherRun.TRACE_KEY + " = " + Warehouse.sqlString(run.traceKey()),
        spark.createDataFrame(List.of(run.toRow()), TeacherRun.SCHEMA));
  }
}
