package arbor.rlm.sandbox;

/** One node's REPL. One cell at a time; variables persist from cell to cell until closed. */
public interface SandboxSession extends AutoCloseable {
  /**
   * Runs one cell within the limits of its sandbox. Model errors, timeouts and a lost sandbox are
   * all results; after {@link CellStatus#SANDBOX_LOST} every later cell is lost too.
   */
  CellResult execute(String code);

  @Override
  void close();
}
