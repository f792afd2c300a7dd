package arbor.jobs.view;

import arbor.notebook.Html;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Python source as escaped HTML with its comments, strings, numbers, keywords and the REPL's
 * own names ({@code llm_query}, {@code FINAL_VAR}, ...) in spans a stylesheet colours. A lexer
 * for reading, not for running: a string it cannot close runs to the end of the line.
 */
final class PythonHighlight {
  private PythonHighlight() {}

  private static final Set<String> KEYWORDS = Set.of("False", "None", "True", "and", "as", "assert", "break",
      "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
      "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with",
      "yield");
  /** The REPL's reserved names (the sandbox prelude binds them). */
  private static final Set<String> TOOLS = Set.of("FINAL", "FINAL_VAR", "SHOW_VARS", "llm_query", "llm_query_batched",
      "rlm_query", "rlm_query_batched", "list_papers", "search", "extract_section", "get_paper_abstract", "context",
      "question");

  // Triple-quoted strings first, then one-line strings, comments, numbers, names.
  private static final Pattern TOKEN = Pattern.compile(
      "(?<str>[rRbBfF]{0,2}(\"\"\"[\\s\\S]*?(\"\"\"|$)|'''[\\s\\S]*?('''|$)|\"(\\\\.|[^\"\\\\\\n])*(\"|$)"
          + "|'(\\\\.|[^'\\\\\\n])*('|$)))"
          + "|(?<comment>#[^\\n]*)"
          + "|(?<num>\\b\\d+(\\.\\d+)?([eE][-+]?\\d+)?\\b)"
          + "|(?<name>[A-Za-z_][A-Za-z_0-9]*)", Pattern.MULTILINE);

  static String html(String code) {
    if (code == null) return "";
    StringBuilder s = new StringBuilder(code.length() * 2);
    Matcher m = TOKEN.matcher(code);
    int at = 0;
    while (m.find()) {
      s.append(Html.escape(code.substring(at, m.start())));
      String kind = m.group("str") != null ? "s" : m.group("comment") != null ? "c" : m.group("num") != null ? "nu"
          : KEYWORDS.contains(m.group()) ? "k" : TOOLS.contains(m.group()) ? "t" : null;
      if (kind == null) {
        s.append(Html.escape(m.group()));
      } else {
        s.append("<span class=\"").append(kind).append("\">").append(Html.escape(m.group())).append("</span>");
      }
      at = m.end();
    }
    return s.append(Html.escape(code.substring(at))).toString();
  }
}
