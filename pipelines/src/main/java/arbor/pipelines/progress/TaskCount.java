package arbor.pipelines.progress;

import arbor.rlm.runtime.RunTrees;
import java.util.Iterator;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.LongAccumulator;

/**
 * Units of work done by Spark tasks, counted where they are done (on the executors) and read on
 * the driver for a {@link Progress}. An accumulator reaches the driver as each task ends, so the
 * count moves a task's worth at a time (rollouts.trees_per_task trees for the rollouts); it works
 * the same on a cluster. A task that runs twice counts twice, so a reader caps it at the total
 * ({@link ProgressLine} never shows more than 100%).
 */
public final class TaskCount {
  private final LongAccumulator count;

  private TaskCount(LongAccumulator count) {
    this.count = count;
  }

  public static TaskCount register(SparkSession spark, String name) {
    return new TaskCount(spark.sparkContext().longAccumulator(name));
  }

  public long done() {
    return count.value();
  }

  /** A rollout probe that counts each tree as it ends. */
  public RunTrees.TaskProbe trees() {
    LongAccumulator c = count;  // the lambda ships the accumulator alone to the executors
    return (partition, attempt, treesEnded) -> c.add(1);
  }

  /** {@code rows}, each counted as a task hands it on (lazily, as the plan runs). */
  public Dataset<Row> counting(Dataset<Row> rows) {
    return rows.mapPartitions(new Counting(count), rows.encoder());
  }

  private record Counting(LongAccumulator count) implements MapPartitionsFunction<Row, Row> {
    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return rows.hasNext();
        }

        @Override
        public Row next() {
          Row r = rows.next();
          count.add(1);
          return r;
        }
      };
    }
  }
}
