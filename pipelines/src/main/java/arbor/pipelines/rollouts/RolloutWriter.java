package arbor.pipelines.rollouts;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import arbor.conf.RolloutSettings;
import arbor.rlm.runtime.TreeRows;
import arbor.tables.RolloutNode;
import arbor.tables.RolloutTurn;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * Writes a step's trees to {@code rollout_nodes} and {@code rollout_turns}, idempotently. The
 * trees run exactly once, while they are staged (Parquet under {@code <warehouse>/_staging/}:
 * Spark's commit protocol keeps only one attempt of a retried task); both tables are then written
 * from the staged rows with {@link Warehouse#replaceStep}, so a rerun of the step replaces its
 * rows, never adds to them. A step whose trees end in infrastructure failures more often than
 * {@code rollouts.max_infra_failure_fraction} fails before touching the tables (its staged trees
 * stay for inspection); below that, such trees are rows with their status.
 */
public final class RolloutWriter {
  private final Warehouse warehouse;
  private final RolloutSettings settings;

  public RolloutWriter(Warehouse warehouse, RolloutSettings settings) {
    this.warehouse = warehouse;
    this.settings = settings;
  }

  /** What one step wrote: trees, the infrastructure failures among them, and root statuses. */
  public record Written(long trees, long infraFailures, Map<String, Long> rootStatuses, long stageMillis,
      long writeMillis) {}

  /** Too many of the step's trees failed for reasons of the harness, not the policy. */
  public static final class InfraFailures extends IllegalStateException {
    public InfraFailures(String message) {
      super(message);
    }
  }

  /** Where the trees of a step are staged before both tables are written from them. */
  public String stagingPath(String runId, long step) {
    return warehouse.root() + "/_staging/rollouts/" + URLEncoder.encode(runId, StandardCharsets.UTF_8) + "/step=" + step;
  }

  public Written write(String runId, long step, Dataset<Row> trees) {
    SparkSession spark = trees.sparkSession();
    String staging = stagingPath(runId, step);
    long t0 = System.nanoTime();
    trees.write().mode("overwrite").parquet(staging);
    long stageMillis = (System.nanoTime() - t0) / 1_000_000;
    long t1 = System.nanoTime();
    Dataset<Row> staged = spark.read().parquet(staging);
    Map<String, Long> statuses = new LinkedHashMap<>();
    long total = 0;
    long infra = 0;
    for (Row r : staged.groupBy(TreeRows.STATUS).agg(count("*").as("n"),
        sum(when(col(TreeRows.INFRA_FAILURE), 1).otherwise(0)).as("infra")).orderBy(TreeRows.STATUS).collectAsList()) {
      statuses.put(r.getString(0), r.getLong(1));
      total += r.getLong(1);
      infra += r.getLong(2);
    }
    if (total > 0 && (double) infra / total > settings.maxInfraFailureFraction()) {
      throw new InfraFailures(String.format(java.util.Locale.ROOT,
          "rollouts: %d of the %d trees of run %s step %d ended in an infrastructure failure (%.1f%%), more than"
              + " rollouts.max_infra_failure_fraction = %s; the step's tables were not changed, its trees are staged at %s",
          infra, total, runId, step, 100.0 * infra / total, settings.maxInfraFailureFraction(), staging));
    }
    Dataset<Row> nodes = exact(spark, Rollouts.nodes(staged), RolloutNode.SCHEMA);
    Dataset<Row> turns = exact(spark, Rollouts.turns(staged), RolloutTurn.SCHEMA);
    warehouse.replaceStep(Table.ROLLOUT_NODES, runId, step, nodes);
    warehouse.replaceStep(Table.ROLLOUT_TURNS, runId, step, turns);
    delete(spark, staging);
    return new Written(total, infra, statuses, stageMillis, (System.nanoTime() - t1) / 1_000_000);
  }

  /** Parquet reads every column back as nullable; the tables keep the schemas of {@code arbor.tables}. */
  private static Dataset<Row> exact(SparkSession spark, Dataset<Row> rows, StructType schema) {
    return spark.createDataFrame(rows.javaRDD(), schema);
  }

  private static void delete(SparkSession spark, String dir) {
    Path p = new Path(dir);
    try {
      FileSystem fs = p.getFileSystem(spark.sparkContext().hadoopConfiguration());
      fs.delete(p, true);
    } catch (IOException e) {
      throw new UncheckedIOException("rollouts: could not delete the staged trees at " + dir, e);
    }
  }
}
