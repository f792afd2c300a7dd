package arbor.rlm;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a policy response: its code blocks (fences {@code ```repl} and {@code ```python}, in
 * order) and a final answer written as text outside any fence ({@code FINAL(...)} or
 * {@code FINAL_VAR(...)} at the start of a line; the last one wins).
 */
public final class ResponseParser {
  private static final Pattern FENCE = Pattern.compile("```([A-Za-z0-9_+-]*)[ \\t]*\\r?\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern FINAL_START = Pattern.compile("(?m)^[ \\t>*]*(FINAL_VAR|FINAL)\\(");

  private ResponseParser() {}

  /** A final answer written as text: which built-in, and the source text of its argument. */
  public record FinalText(boolean isVar, String argument) {
    /** The Python statement that submits this answer in the node's REPL. */
    public String asCode() {
      String arg = argument.strip();
      if (isVar && arg.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        arg = "'" + arg + "'";
      }
      return (isVar ? "FINAL_VAR(" : "FINAL(") + arg + ")";
    }
  }

  public static List<String> codeBlocks(String response) {
    List<String> blocks = new ArrayList<>();
    Matcher m = FENCE.matcher(response);
    while (m.find()) {
      String lang = m.group(1).toLowerCase(java.util.Locale.ROOT);
      if (lang.equals("repl") || lang.equals("python")) {
        blocks.add(m.group(2).stripTrailing());
      }
    }
    return blocks;
  }

  public static Optional<FinalText> finalText(String response) {
    String outside = FENCE.matcher(response).replaceAll("\n");
    FinalText last = null;
    Matcher m = FINAL_START.matcher(outside);
    while (m.find()) {
      int close = matchingParen(outside, m.end() - 1);
      if (close > 0) {
        last = new FinalText(m.group(1).equals("FINAL_VAR"), outside.substring(m.end(), close));
      }
    }
    return Optional.ofNullable(last);
  }

  /** The index of the parenthesis closing the one at {@code open}, skipping string literals. */
  static int matchingParen(String s, int open) {
    int depth = 0;
    char quote = 0;
    for (int i = open; i < s.length(); i++) {
      char c = s.charAt(i);
      if (quote != 0) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '(' || c == '[' || c == '{') {
        depth++;
      } else if (c == ')' || c == ']' || c == '}') {
        depth--;
        if (depth == 0) {
          return c == ')' ? i : -1;
        }
      }
    }
    return -1;
  }
}
