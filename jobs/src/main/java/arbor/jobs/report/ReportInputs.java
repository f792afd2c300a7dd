package arbor.jobs.report;

import static org.apache.spark.sql.functions.col;

import arbor.pipelines.eval.Evaluate;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.synthesis.Queries;
import arbor.tables.Cols;
import arbor.tables.Eval;
import arbor.tables.Metric;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The warehouse rows one run's report is drawn from. {@code metrics} and {@code eval} are never
 * null (empty when the table is missing); the others are null when their table is missing.
 *
 * @param metrics {@code metrics} rows of the training run (sft's included)
 * @param rewards {@code rewards} rows of the training run
 * @param nodes {@code rollout_nodes} rows of the training run
 * @param eval {@code eval} rows filed under the run (every policy, split and evaluated step)
 * @param queryGroups (query_id, group_id) of every query: the paper group each was made from
 */
public record ReportInputs(Dataset<Row> metrics, Dataset<Row> rewards, Dataset<Row> nodes, Dataset<Row> eval,
    Dataset<Row> queryGroups) {

  public static ReportInputs read(Warehouse w, String run) {
    var spark = org.apache.spark.sql.SparkSession.active();
    return new ReportInputs(
        w.exists(Table.METRICS) ? ofRun(w, Table.METRICS, run) : spark.createDataFrame(List.of(), Metric.SCHEMA),
        w.exists(Table.REWARDS) ? ofRun(w, Table.REWARDS, run) : null,
        w.exists(Table.ROLLOUT_NODES) ? ofRun(w, Table.ROLLOUT_NODES, run) : null,
        w.exists(Table.EVAL) ? ofRun(w, Table.EVAL, run) : spark.createDataFrame(List.of(), Eval.SCHEMA),
        w.exists(Table.QUERIES) ? w.read(Table.QUERIES).select(Queries.QUERY_ID, Queries.GROUP_ID) : null);
  }

  private static Dataset<Row> ofRun(Warehouse w, Table t, String run) {
    return w.read(t).where(col(Cols.RUN_ID).equalTo(run));
  }

  /** The eval runs whose trees the report links to: one per evaluated policy and split. */
  public List<String> evalRuns(String run) {
    return eval.select(Eval.POLICY, Eval.SPLIT).distinct().orderBy(Eval.POLICY, Eval.SPLIT).collectAsList().stream()
        .map(r -> Evaluate.evalRunId(run, r.getString(0), r.getString(1))).toList();
  }

  /** Whether there is anything to report: training metrics or evaluated trees. */
  public boolean isEmpty() {
    return metrics.isEmpty() && eval.isEmpty();
  }
}
