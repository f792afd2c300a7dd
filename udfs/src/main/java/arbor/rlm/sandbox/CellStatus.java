package arbor.rlm.sandbox;

/** How one cell ended. */
public enum CellStatus {
  /** Ran to its end. */
  COMPLETED,
  /** Raised an exception; its traceback is on stderr and the REPL is still usable. */
  RAISED,
  /** Ran past its wall-time limit and was interrupted; the REPL is still usable. */
  TIMED_OUT,
  /** Its sandbox was killed or died (a long built-in, memory, a crash); the REPL state is gone. */
  SANDBOX_LOST
}
