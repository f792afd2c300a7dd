package arbor.rlm.sandbox;

import java.util.List;

/**
 * What one execution of a cell produced.
 *
 * @param stdout what the cell printed, at most the session's output cap
 * @param stderr tracebacks and warnings, at most the session's output cap
 * @param droppedChars output beyond the cap that was not kept (counted in UTF-8 bytes past the
 *     kept part, which equals characters for ASCII output)
 * @param finalJson the submitted final answer as JSON, or null when the cell submitted none
 * @param variables the user variables after the cell, in definition order
 * @param activeMillis wall time of the cell not spent waiting for host callbacks
 */
public record CellResult(
    CellStatus status,
    String stdout,
    String stderr,
    long droppedChars,
    String finalJson,
    List<String> variables,
    long activeMillis) {

  public CellResult {
    variables = List.copyOf(variables);
  }

  public boolean hasFinal() {
    return finalJson != null;
  }

  /** A runaway cell whose REPL was given up for it. */
  public static CellResult killed(String why, long activeMillis) {
    return new CellResult(CellStatus.KILLED, "", why, 0, null, List.of(), activeMillis);
  }

  /** A cell stopped (its node cancelled) while it still queued for a CPU slot: it never ran. */
  static CellResult stoppedBeforeRunning() {
    return new CellResult(CellStatus.TIMED_OUT, "", "the cell was stopped before it ran\n", 0, null, List.of(), 0);
  }

  /** A cell that never ran to an answer because its sandbox is gone. */
  public static CellResult lost(String why, long activeMillis) {
    return new CellResult(CellStatus.SANDBOX_LOST, "", why, 0, null, List.of(), activeMillis);
  }

  CellResult withStatus(CellStatus newStatus, String note) {
    String err = stderr.isEmpty() || stderr.endsWith("\n") ? stderr + note : stderr + "\n" + note;
    return new CellResult(newStatus, stdout, err, droppedChars, finalJson, variables, activeMillis);
  }

  CellResult withActiveMillis(long millis) {
    return new CellResult(status, stdout, stderr, droppedChars, finalJson, variables, millis);
  }
}
