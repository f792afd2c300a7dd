package arbor.rlm.tools;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The title and abstract of one paper text: a title line, then an abstract block, then the body.
 * Works on the markdown of public datasets ({@code # Title}, {@code ## Abstract}) and on PDF text
 * (a title line, author lines, a line starting with "Abstract").
 */
public record PaperText(String id, String text, String title, String abstractText) {
  private static final int MAX_ABSTRACT_CHARS = 2_000;
  // "Abstract" as a heading of its own, or opening the first line of the abstract ("Abstract: We").
  private static final Pattern ABSTRACT_HEADING =
      Pattern.compile("(?im)^[ \\t#*]*abstract\\b[ \\t]*[:.\\-\u2014]?[ \\t]*");
  private static final Pattern BLOCK_END = Pattern.compile("\\n[ \\t]*\\n|\\n[ \\t]*#");

  public static PaperText parse(String id, String text) {
    String title = titleOf(text);
    return new PaperText(id, text, title, findAbstract(text, title));
  }

  /** The title line alone, without reading the abstract. */
  public static String titleOf(String text) {
    return firstNonBlankLine(text).replaceFirst("^#+\\s*", "").strip();
  }

  private static String firstNonBlankLine(String text) {
    int start = 0;
    while (start < text.length()) {
      int end = text.indexOf('\n', start);
      if (end < 0) {
        end = text.length();
      }
      String line = text.substring(start, end);
      if (!line.isBlank()) {
        return line.strip();
      }
      start = end + 1;
    }
    return "";
  }

  private static String findAbstract(String text, String title) {
    Matcher heading = ABSTRACT_HEADING.matcher(text);
    int start;
    if (heading.find()) {
      start = heading.end();
    } else {
      // No marker: the first block after the title line stands in for the abstract.
      int titleAt = title.isEmpty() ? 0 : Math.max(0, text.indexOf(title));
      int lineEnd = text.indexOf('\n', titleAt);
      start = lineEnd < 0 ? text.length() : lineEnd + 1;
    }
    while (start < text.length() && Character.isWhitespace(text.charAt(start))) {
      start++;
    }
    Matcher end = BLOCK_END.matcher(text);
    int stop = end.find(start) ? end.start() : text.length();
    stop = Math.min(stop, start + MAX_ABSTRACT_CHARS);
    return text.substring(start, Math.max(start, stop)).strip();
  }
}
