package arbor.rlm.sandbox;

/** How one cell ended. */
public enum CellStatus {
  /** Ran to its end. */
  COMPLETED,
  /** Raised an exception; its traceback is on stderr and the REPL is still usable. */
  RAISED,
  /** Ran past its wall-time limit and was interrupted; the REPL is still usable. */
  TIMED_OUT,
  /**
   * Ran past its wall-time limit and ignored the interrupt (a long built-in): its worker was
   * killed for it and its own REPL is gone; the other REPLs of that worker are restored.
   */
  KILLED,
  /**
   * The REPL was lost to something else (another REPL's runaway cell, a worker that died or
   * stopped answering) and could not be restored; the REPL state is gone.
   */
  SANDBOX_LOST;

  /** Whether the REPL is gone after this cell: every later cell is lost too. */
  public boolean replGone() {
    return this == KILLED || this == SANDBOX_LOST;
  }
}
