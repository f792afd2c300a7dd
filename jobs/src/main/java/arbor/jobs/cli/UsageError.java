package arbor.jobs.cli;

/** The command line asks for something that does not exist; the message says what and how to fix it. */
public final class UsageError extends RuntimeException {
  public UsageError(String message) {
    super(message);
  }
}
