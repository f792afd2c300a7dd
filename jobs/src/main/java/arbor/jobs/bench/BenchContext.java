package arbor.jobs.bench;

import arbor.conf.ArborConfig;
import arbor.jobs.cli.JobContext;
import java.io.PrintStream;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/** What a benchmark runs with: the job's context (configuration, console, Spark) and its own arguments. */
public record BenchContext(JobContext job, List<String> args) {
  public ArborConfig config() { return job.config(); }
  public PrintStream out() { return job.out(); }
  public SparkSession spark() { return job.spark(); }
}
