package arbor.pipelines.learner;

import arbor.policy.train.StepStats;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * One learner step: its figures, and the same figures as {@code metrics} rows (schema
 * {@code arbor.tables.Metric}) for the caller to write with the step's other metrics.
 */
public record LearnerStepResult(StepStats stats, Dataset<Row> metrics) {}
