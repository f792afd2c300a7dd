package arbor.jobs.cli;

import arbor.conf.ApiKeys;
import arbor.conf.ArborConfig;
import arbor.pipelines.spark.Sessions;
import arbor.pipelines.warehouse.Warehouse;
import java.io.PrintStream;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * What a job runs with: the configuration, its own arguments, the console, and a SparkSession
 * opened on first use (jobs such as {@code setup} never start Spark).
 */
public final class JobContext implements AutoCloseable {
  private final String job;
  private final ArborConfig config;
  private final List<String> args;
  private final PrintStream out;
  private SparkSession spark;
  private ApiKeys apiKeys;
  private boolean ownsSpark;
  private java.util.function.Consumer<arbor.pipelines.warehouse.Table> beforeWrite = table -> {};

  public JobContext(String job, ArborConfig config, List<String> args, PrintStream out) {
    this.job = job;
    this.config = config;
    this.args = List.copyOf(args);
    this.out = out;
  }

  public String job() { return job; }
  public ArborConfig config() { return config; }
  public List<String> args() { return args; }
  public PrintStream out() { return out; }

  /**
   * The API keys the configuration's endpoints name, read from this process's environment once:
   * the one place below which no code reads the environment.
   */
  public synchronized ApiKeys apiKeys() {
    if (apiKeys == null) apiKeys = ApiKeys.read(config, System.getenv());
    return apiKeys;
  }

  public synchronized SparkSession spark() {
    if (spark == null) {
      // A session that already exists (a notebook's, a test suite's) is borrowed, not owned.
      ownsSpark = SparkSession.getDefaultSession().isEmpty();
      spark = Sessions.open(config.spark());
    }
    return spark;
  }

  public Warehouse warehouse() {
    return new Warehouse(spark(), config.warehouse(), beforeWrite);
  }

  /** Test-only fault point: {@code hook} runs before every warehouse write of this job; throw from it to crash the job there. */
  public void beforeEachWrite(java.util.function.Consumer<arbor.pipelines.warehouse.Table> hook) {
    this.beforeWrite = hook;
  }

  /** Stops the session only when this context made it, in local mode; spark-submit stops its own. */
  @Override
  public synchronized void close() {
    if (spark != null && ownsSpark && config.spark().mode() == arbor.conf.SparkSettings.Mode.LOCAL) spark.stop();
  }
}
