package arbor.rlm;

import arbor.rlm.sandbox.CellResult;
import java.util.List;

/**
 * The observation of a turn: per executed block its stdout, its stderr, and the REPL's variables,
 * cut to a maximum length with a marker that says how much was cut.
 */
public final class Observation {
  public static final String NO_CODE = "No code block found. Write Python inside a fence that opens "
      + "with ```repl (or ```python) and closes with ```; submit the answer with FINAL(value) or "
      + "FINAL_VAR(\"name\").";

  private Observation() {}

  public static String format(List<CellResult> cells, int maxChars) {
    StringBuilder sb = new StringBuilder();
    long cutByCap = 0;
    for (int i = 0; i < cells.size(); i++) {
      CellResult cell = cells.get(i);
      if (cells.size() > 1) {
        sb.append("[block ").append(i + 1).append(" of ").append(cells.size()).append("]\n");
      }
      appendLine(sb, cell.stdout());
      appendLine(sb, cell.stderr());
      sb.append("REPL variables: ").append(cell.variables()).append('\n');
      cutByCap += cell.droppedChars();
    }
    return truncate(sb.toString(), maxChars, cutByCap);
  }

  /** Cuts {@code text} to {@code maxChars}, counting {@code alreadyCut} characters dropped earlier. */
  public static String truncate(String text, int maxChars, long alreadyCut) {
    long cut = alreadyCut + Math.max(0, text.length() - maxChars);
    if (cut == 0) {
      return text;
    }
    String kept = text.length() > maxChars ? text.substring(0, maxChars) : text;
    return kept + (kept.endsWith("\n") ? "" : "\n") + "... [output truncated: " + cut + " characters cut]";
  }

  private static void appendLine(StringBuilder sb, String s) {
    if (!s.isEmpty()) {
      sb.append(s);
      if (!s.endsWith("\n")) {
        sb.append('\n');
      }
    }
  }
}
