package arbor.e2e;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;

import arbor.conf.ArborConfig;
import arbor.conf.ConfigLoader;
import arbor.rlm.runtime.RunTrees;
import arbor.rlm.runtime.TreeRows;
import arbor.rollouts.Rollouts;
import arbor.spark.Sessions;
import arbor.tables.Cols;
import arbor.warehouse.Table;
import arbor.warehouse.Warehouse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The driver of the cluster test's rollout step, a JVM of its own: one query per ingested paper
 * (its group is that paper), {@code rollouts.samples} trees each, by the scripted expert, through
 * the Rollouts stage on the cluster. Shipped to the executors in a jar of its own (spark.jars),
 * with {@link Marker}, which records each tree's end in a folder the test watches.
 * Arguments: the cluster's conf file, the marker folder, this jar.
 */
public final class ClusterRolloutsDriver {
  private ClusterRolloutsDriver() {}

  /** Writes a file per ended tree, named by partition, attempt and count, holding the executor's working folder. */
  public record Marker(String folder) implements RunTrees.TaskProbe {
    @Override
    public void treeEnded(int partition, int attempt, int treesEnded) {
      try {
        Files.writeString(Path.of(folder, "p" + partition + "-a" + attempt + "-t" + treesEnded), System.getProperty("user.dir"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  public static void main(String[] args) {
    ArborConfig config = ConfigLoader.load(List.of(args[0]), List.of(
        "warehouse=warehouse", "data_dir=data",
        "rollouts.policy=scripted", "rollouts.samples=2", "rollouts.trees_per_task=2", "rollouts.sandbox=in_process",
        "spark.extra.\"spark.jars\"=" + args[2]));
    SparkSession spark = Sessions.open(config.spark());
    Warehouse warehouse = new Warehouse(spark, config.warehouse());
    Dataset<Row> papers = warehouse.read(Table.PAPERS);
    Dataset<Row> groups = papers.select(concat(lit("g-"), col(Rollouts.PAPER_ID)).as(Rollouts.GROUP_ID),
        array(col(Rollouts.PAPER_ID)).as(Rollouts.GROUP_PAPER_IDS));
    Dataset<Row> queries = papers.select(concat(lit("q-"), col(Rollouts.PAPER_ID)).as(Cols.QUERY_ID),
        concat(lit("g-"), col(Rollouts.PAPER_ID)).as(Rollouts.GROUP_ID),
        concat(lit("Which sentences of the paper state its numbered findings? ("), col("title"), lit(")")).as(TreeRows.QUESTION));
    System.out.println("rollouts: step 0 starts");
    var written = new Rollouts(config, null, new Marker(args[1])).runStep(warehouse, queries, groups, papers, "cluster", 0, 0);
    System.out.println("rollouts: " + written.trees() + " trees written, statuses " + written.rootStatuses());
    spark.stop();
  }
}
