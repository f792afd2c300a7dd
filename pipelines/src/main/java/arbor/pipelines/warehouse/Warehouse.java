package arbor.pipelines.warehouse;

import arbor.inputs.MissingInput;
import io.delta.tables.DeltaTable;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The warehouse root and its Delta tables: where each table lives, reading it, and the MERGE
 * that every idempotent write goes through.
 */
public final class Warehouse {
  private final SparkSession spark;
  private final String root;
  private final java.util.function.Consumer<Table> beforeWrite;

  public Warehouse(SparkSession spark, String root) {
    this(spark, root, table -> {});
  }

  /**
   * @param beforeWrite runs before every write with the table about to be written; tests throw
   *     from it to crash a job between two writes
   */
  public Warehouse(SparkSession spark, String root, java.util.function.Consumer<Table> beforeWrite) {
    this.spark = spark;
    this.root = qualified(spark, root.endsWith("/") ? root.substring(0, root.length() - 1) : root);
    this.beforeWrite = beforeWrite;
  }

  /**
   * The root as an absolute URI ({@code warehouse} becomes {@code file:/driver/dir/warehouse}):
   * table paths travel to executors (the checkpoint source a rollout task loads its policy from),
   * and an executor resolves a relative path in its own working folder, not the driver's.
   */
  private static String qualified(SparkSession spark, String root) {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(root);
    try {
      return path.getFileSystem(spark.sessionState().newHadoopConf()).makeQualified(path).toString();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot resolve the warehouse root '" + root + "'", e);
    }
  }

  public String root() {
    return root;
  }

  public String path(Table table) {
    return root + "/" + table.tableName;
  }

  public boolean exists(Table table) {
    return DeltaTable.isDeltaTable(spark, path(table));
  }

  public Dataset<Row> read(Table table) {
    if (!exists(table)) {
      throw new MissingInput("table " + table.tableName, path(table), "run " + table.writtenBy() + " first");
    }
    return spark.read().format("delta").load(path(table));
  }

  /** What one write did to its target table. */
  public record MergeCounts(long sourceRows, long inserted, long updated, long deleted) {
    public long unchanged() {
      return sourceRows - inserted - updated - deleted;
    }
  }

  /**
   * Inserts the rows whose key is new and updates those whose key exists and for which
   * {@code changed} (SQL over aliases {@code t}, the table, and {@code s}, the rows) holds;
   * leaves every other row alone. Creates the table on first use. Rows must be unique by key,
   * and should be cached: they are counted, then merged.
   */
  public MergeCounts upsert(Table table, Dataset<Row> rows, String changed) {
    long sourceRows = rows.count();
    if (sourceRows > 0 || !exists(table)) beforeWrite.accept(table);
    if (!exists(table)) {
      rows.write().format("delta").mode("errorifexists").save(path(table));
      return new MergeCounts(sourceRows, sourceRows, 0, 0);
    }
    if (sourceRows == 0) return new MergeCounts(0, 0, 0, 0);
    // Schema evolution: rows with a column the table lacks (one added in a later version) add it.
    Row m = DeltaTable.forPath(spark, path(table)).as("t")
        .merge(rows.as("s"), keyMatch(table))
        .withSchemaEvolution()
        .whenMatched(changed).updateAll()
        .whenNotMatched().insertAll()
        .execute().first();
    return new MergeCounts(sourceRows, m.getAs("num_inserted_rows"), m.getAs("num_updated_rows"), 0);
  }

  /**
   * Replaces every row of one training step ({@code run_id = runId AND step = step}) with
   * {@code rows}, atomically: a rerun or a retried write leaves exactly one copy of the step,
   * and readers see either the old rows or the new ones. Creates the table on first use. Rows
   * must all belong to that step; Delta rejects any that do not.
   */
  public void replaceStep(Table table, String runId, long step, Dataset<Row> rows) {
    if (!table.keys.containsAll(List.of("run_id", "step"))) {
      throw new IllegalArgumentException("table '" + table.tableName + "' is not keyed by run and step");
    }
    replaceWhere(table, "run_id = " + sqlString(runId) + " AND step = " + step, rows);
  }

  /** {@code value} as a SQL string literal, quotes doubled, for the conditions of {@link #replaceWhere}. */
  public static String sqlString(String value) {
    return "'" + value.replace("'", "''") + "'";
  }

  /**
   * Replaces the rows matching the SQL condition {@code where} with {@code rows}, atomically, as
   * {@link #replaceStep} does for a finer slice (the {@code eval} rows of one policy and split
   * of a step). Rows must all match {@code where}; Delta rejects any that do not.
   */
  public void replaceWhere(Table table, String where, Dataset<Row> rows) {
    beforeWrite.accept(table);
    if (!exists(table)) {
      rows.write().format("delta").mode("errorifexists").save(path(table));
      return;
    }
    rows.write().format("delta").mode("overwrite").option("replaceWhere", where).save(path(table));
  }

  /** Deletes the table's rows whose key appears in {@code keys}. */
  public long deleteMatching(Table table, Dataset<Row> keys) {
    if (!exists(table)) return 0;
    beforeWrite.accept(table);
    Row m = DeltaTable.forPath(spark, path(table)).as("t")
        .merge(keys.as("s"), keyMatch(table))
        .whenMatched().delete()
        .execute().first();
    return m.getAs("num_deleted_rows");
  }

  /** Registers every existing table as a temporary view under its name, for SQL. */
  public List<Table> registerViews() {
    List<Table> registered = new ArrayList<>();
    for (Table t : Table.values()) {
      if (exists(t)) {
        read(t).createOrReplaceTempView(t.tableName);
        registered.add(t);
      }
    }
    return registered;
  }

  private static String keyMatch(Table table) {
    return table.keys.stream().map(k -> "t." + k + " = s." + k).collect(Collectors.joining(" AND "));
  }
}
