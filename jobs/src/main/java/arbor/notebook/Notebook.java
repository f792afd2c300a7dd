package arbor.notebook;

import arbor.conf.ArborConfig;
import arbor.jobs.conf.ConfigLoader;
import arbor.pipelines.spark.Sessions;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What a notebook's first cell opens: the checkout's configuration (the {@code local} profile,
 * with {@code data_dir} and {@code warehouse} under the checkout, so the notebook's own working
 * folder does not matter), a local SparkSession, and every warehouse table that exists as a SQL
 * view of its own name.
 *
 * <pre>{@code
 * var nb = Notebook.open(System.getenv("ARBOR_REPO"));
 * { display("text/html", nb.html("SELECT tier, count(*) FROM queries GROUP BY tier")); }
 * }</pre>
 */
public final class Notebook implements AutoCloseable {
  private final ArborConfig config;
  private final SparkSession spark;
  private final Warehouse warehouse;
  private final List<Table> tables;
  private final boolean ownsSpark;

  private Notebook(ArborConfig config, SparkSession spark, boolean ownsSpark) {
    this.config = config;
    this.spark = spark;
    this.ownsSpark = ownsSpark;
    this.warehouse = new Warehouse(spark, config.warehouse());
    this.tables = warehouse.registerViews();
  }

  /**
   * Opens the checkout at {@code repo} (the kernel sets {@code ARBOR_REPO} to it); {@code sets}
   * are {@code key=value} overrides as after {@code --set}, applied last.
   */
  public static Notebook open(String repo, String... sets) {
    if (repo == null || repo.isBlank()) {
      throw new IllegalArgumentException("no checkout given: the arbor-java kernel sets ARBOR_REPO; install it with bin/arbor notebooks");
    }
    Path root = Path.of(repo).toAbsolutePath().normalize();
    if (!Files.isRegularFile(root.resolve("conf/defaults.conf"))) {
      throw new IllegalArgumentException("'" + root + "' is not an Arbor checkout (no conf/defaults.conf)");
    }
    List<String> all = new ArrayList<>();
    all.add("data_dir=" + root.resolve("data"));
    all.add("warehouse=" + root.resolve("data/warehouse"));
    all.addAll(List.of(sets));
    return open(ConfigLoader.load(List.of("local"), all));
  }

  /** Opens a notebook session on a configuration loaded elsewhere (tests, other tools). */
  public static Notebook open(ArborConfig config) {
    // JShell loads the project's classes in a class loader of its own; Spark and Delta find
    // their data sources through the thread's context loader, so make it that loader.
    Thread.currentThread().setContextClassLoader(Notebook.class.getClassLoader());
    // A session that already exists (a test suite's) is borrowed, not owned.
    boolean owns = SparkSession.getDefaultSession().isEmpty();
    return new Notebook(config, Sessions.open(config.spark()), owns);
  }

  public ArborConfig config() { return config; }
  public SparkSession spark() { return spark; }
  public Warehouse warehouse() { return warehouse; }

  /** The tables that existed when the notebook opened (each is a view of its own name). */
  public List<Table> tables() { return tables; }

  public Dataset<Row> table(Table table) {
    return warehouse.read(table);
  }

  /** The table's Delta history, newest version first (version, timestamp, operation, ...). */
  public Dataset<Row> history(Table table) {
    table(table); // fails with the table's name when it does not exist
    return io.delta.tables.DeltaTable.forPath(spark, warehouse.path(table)).history();
  }

  /** The table as it was at Delta version {@code version} (time travel). */
  public Dataset<Row> asOf(Table table, long version) {
    table(table);
    return spark.read().format("delta").option("versionAsOf", version).load(warehouse.path(table));
  }

  public Dataset<Row> sql(String query) {
    return spark.sql(query);
  }

  /** The first rows of a query as an HTML table. */
  public String html(String query) {
    return HtmlTable.render(sql(query));
  }

  public String html(String query, int maxRows) {
    return HtmlTable.render(sql(query), maxRows, HtmlTable.DEFAULT_CHARS);
  }

  public String html(String query, int maxRows, int maxChars) {
    return HtmlTable.render(sql(query), maxRows, maxChars);
  }

  @Override
  public String toString() {
    return "Notebook[warehouse " + config.warehouse() + ", tables " + tables.stream().map(t -> t.tableName).toList() + "]";
  }

  /** Stops the SparkSession when this notebook started it. */
  @Override
  public void close() {
    if (ownsSpark) spark.stop();
  }
}
