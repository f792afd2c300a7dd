package arbor.inputs;

/**
 * A job's input is not where it was looked for: a warehouse table no job has written yet, a data
 * set folder that was never fetched. The entry point turns it into one line and exit code 2
 * ({@code arbor: <job>: missing <what> at <where>; <how to get it>}), not a stack trace: it is
 * the user's next step, not a bug.
 *
 * @param job who needed the input ("bench repl"); null: the entry point names the job
 */
public final class MissingInput extends RuntimeException {
  private final String job;

  public MissingInput(String what, Object where, String how) {
    this(null, "missing " + what + " at " + where + "; " + how);
  }

  private MissingInput(String job, String message) {
    super(message);
    this.job = job;
  }

  /** The same input, missed by {@code job} (a bench names itself, the entry point knows only "bench"). */
  public MissingInput by(String job) {
    return this.job != null ? this : new MissingInput(job, getMessage());
  }

  public String job() {
    return job;
  }

  /** The one line the entry point prints, {@code defaultJob} unless the input named its own. */
  public String line(String defaultJob) {
    return "arbor: " + (job != null ? job : defaultJob) + ": " + getMessage();
  }

  /** The MissingInput in {@code e}'s chain of causes (a Spark or executor exception may wrap it), or null. */
  public static MissingInput in(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof MissingInput m) return m;
      if (t.getCause() == t) break;
    }
    return null;
  }
}
