package arbor.jobs;

/** One entry point of {@code arbor <job>}. */
public interface Job {

  /** One line for {@code arbor --help}. */
  String summary();

  /** The job's own options, for {@code arbor <job> --help}. */
  String usage();

  /** Runs the job; returns the process exit code. Usage problems throw {@link UsageError}. */
  int run(JobContext context) throws Exception;
}
