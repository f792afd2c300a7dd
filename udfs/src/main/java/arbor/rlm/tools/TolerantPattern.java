package arbor.rlm.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A literal phrase compiled to a case-insensitive pattern that tolerates the noise of PDF text:
 * a run of whitespace in the phrase matches any run of whitespace in the text, and a word broken
 * by a hyphen at a line end ({@code pa-\nrameters}) matches the unbroken word.
 *
 * <p>The pattern only ever matches characters of the text itself, so every match is a verbatim
 * span of the text, whatever noise it spans.
 */
public final class TolerantPattern {
  // Between two letters of one word the text may hold "-", optional blanks, a line break, and the
  // indentation of the next line.
  private static final String LINE_BREAK_HYPHEN = "(?:-[ \\t]*\\r?\\n[ \\t]*)?";

  private final String phrase;
  private final Pattern pattern;
  private final char first;
  private final char firstUpper;
  private final char second;

  private TolerantPattern(String phrase, Pattern pattern) {
    this.phrase = phrase;
    this.pattern = pattern;
    this.first = Character.toLowerCase(phrase.charAt(0));
    this.firstUpper = Character.toUpperCase(first);
    this.second = phrase.length() > 1 ? Character.toLowerCase(phrase.charAt(1)) : 0;
  }

  /** Compiles {@code phrase}; blank phrases are rejected because they would match everywhere. */
  public static TolerantPattern of(String phrase) {
    String trimmed = phrase.strip();
    if (trimmed.isEmpty()) {
      throw new IllegalArgumentException("the phrase to match is empty; give a keyword or phrase");
    }
    StringBuilder regex = new StringBuilder();
    int i = 0;
    while (i < trimmed.length()) {
      char ch = trimmed.charAt(i);
      if (Character.isWhitespace(ch)) {
        while (i < trimmed.length() && Character.isWhitespace(trimmed.charAt(i))) {
          i++;
        }
        regex.append("\\s+");
        continue;
      }
      regex.append(Pattern.quote(String.valueOf(ch)));
      boolean nextIsLetter = i + 1 < trimmed.length() && Character.isLetter(trimmed.charAt(i + 1));
      if (Character.isLetter(ch) && nextIsLetter) {
        regex.append(LINE_BREAK_HYPHEN);
      }
      i++;
    }
    int flags = Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;
    return new TolerantPattern(trimmed, Pattern.compile(regex.toString(), flags));
  }

  public String phrase() {
    return phrase;
  }

  public Matcher matcher(CharSequence text) {
    return pattern.matcher(text);
  }

  /**
   * All non-overlapping matches in {@code text}, as {@code [start, end)} pairs, the same as
   * {@code matcher(text).find()} would give. Faster on long texts: the regex runs only where the
   * first two characters can start a match (a plain scan finds those), not at every position.
   */
  public List<int[]> findAll(String text) {
    List<int[]> out = new ArrayList<>();
    Matcher m = pattern.matcher(text);
    int n = text.length();
    int i = 0;
    while (i < n) {
      char c = text.charAt(i);
      // Plain comparisons first: case-folding every character of a long text costs more.
      boolean candidate = c == first || c == firstUpper || (c >= 128 && Character.toLowerCase(c) == first);
      if (!candidate || !secondMayFollow(text, i + 1)) {
        i++;
        continue;
      }
      m.region(i, n);
      if (m.lookingAt()) {
        out.add(new int[] {m.start(), m.end()});
        i = Math.max(m.end(), i + 1);
      } else {
        i++;
      }
    }
    return out;
  }

  private boolean secondMayFollow(String text, int at) {
    if (second == 0) {
      return true;
    }
    if (at >= text.length()) {
      return false;
    }
    char c = text.charAt(at);
    if (Character.isWhitespace(second)) {
      return Character.isWhitespace(c);
    }
    return Character.toLowerCase(c) == second || (c == '-' && Character.isLetter(first));
  }
}
