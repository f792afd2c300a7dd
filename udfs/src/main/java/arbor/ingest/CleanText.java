package arbor.ingest;

import java.util.regex.Pattern;

/** Turns wrapped, hyphenated PDF lines back into running text. */
final class CleanText {
  private CleanText() {}

  private static final Pattern BROKEN_WORD = Pattern.compile("(\\p{L})-\\s*\\n\\s*(\\p{Ll})");
  private static final Pattern SPACES = Pattern.compile("\\s+");

  /**
   * Joins lines into one paragraph: a hyphen at a line end followed by a lower-case letter is
   * end-of-line hyphenation and disappears ({@code pa-\nrameters}); ligature glyphs become
   * letters; runs of whitespace become one space.
   */
  static String join(String lines) {
    String s = BROKEN_WORD.matcher(lines).replaceAll("$1$2");
    return SPACES.matcher(expandLigatures(s)).replaceAll(" ").strip();
  }

  static String expandLigatures(String s) {
    return s.replace("\uFB00", "ff").replace("\uFB01", "fi").replace("\uFB02", "fl")
        .replace("\uFB03", "ffi").replace("\uFB04", "ffl");
  }

  /** Fraction of the characters that are letters: low for tables, code and formulas. */
  static double letterRatio(String s) {
    if (s.isEmpty()) return 0;
    long letters = s.chars().filter(Character::isLetter).count();
    return (double) letters / s.length();
  }

  /**
   * Fraction of the non-space characters that are symbols or private-use glyphs: high when a
   * PDF's fonts lack a Unicode mapping and extraction yields dingbats instead of letters.
   */
  static double symbolRatio(String s) {
    long total = 0;
    long symbols = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) continue;
      total++;
      int type = Character.getType(c);
      if (type == Character.OTHER_SYMBOL || type == Character.PRIVATE_USE || type == Character.UNASSIGNED) symbols++;
    }
    return total == 0 ? 0 : (double) symbols / total;
  }

  static String normalizeForCompare(String s) {
    return SPACES.matcher(join(s).toLowerCase()).replaceAll(" ").replaceAll("[^\\p{L}\\p{N} ]", "");
  }
}
