package arbor.jobs.cli;

/** One entry point of {@code arbor <job>}. */
public interface Job {

  /** One line for {@code arbor --help}. */
  String summary();

  /** The job's own options, for {@code arbor <job> --help}. */
  String usage();

  /**
   * Profiles the job applies before the user's {@code --conf} files (which still win), e.g. the
   * demo's small sizes; most jobs have none.
   */
  default java.util.List<String> profiles() {
    return java.util.List.of();
  }

  /** Runs the job; returns the process exit code. Usage problems throw {@link UsageError}. */
  int run(JobContext context) throws Exception;
}
