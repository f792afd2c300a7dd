package arbor.text;

import java.text.Normalizer;
import java.util.Arrays;
import java.util.Optional;

/**
 * A text reduced to what survives PDF extraction, so that clean paragraphs and the noisy text of
 * the same paper line up: compatibility decomposition (ligatures become their letters, accents
 * fall off), lower case, letters and digits only (whitespace, line breaks, hyphens and
 * punctuation go), no TeX control words ({@code \alpha}) and no Greek or mathematical letters
 * (extraction drops them). Each kept character remembers where it came from, so a match in the
 * reduced text maps back to a half-open interval of the original.
 */
public final class NormalizedText {
  /** Pieces of a needle that is not found whole; a needle shorter than two pieces must match whole. */
  static final int CHUNK = 32;
  /** How far past the end of the previous piece the next may start (a running header, a page number). */
  static final int SLACK = 160;

  private final String source;
  private final String text;
  private final int[] origin;

  private NormalizedText(String source, String text, int[] origin) {
    this.source = source;
    this.text = text;
    this.origin = origin;
  }

  public static NormalizedText of(String source) {
    StringBuilder out = new StringBuilder(source.length());
    int[] origin = new int[source.length() + 16];
    int n = 0;
    int i = 0;
    while (i < source.length()) {
      int cp = source.codePointAt(i);
      if (cp == '\\' && i + 1 < source.length() && isAsciiLetter(source.charAt(i + 1))) {
        i++;
        while (i < source.length() && isAsciiLetter(source.charAt(i))) i++;
        continue;
      }
      int width = Character.charCount(cp);
      if (cp < 128) {
        if (Character.isLetterOrDigit(cp)) {
          if (n == origin.length) origin = Arrays.copyOf(origin, origin.length * 2);
          out.append(Character.toLowerCase((char) cp));
          origin[n++] = i;
        }
      } else {
        String decomposed = Normalizer.normalize(source.substring(i, i + width), Normalizer.Form.NFKD);
        for (int k = 0; k < decomposed.length(); ) {
          int d = decomposed.codePointAt(k);
          k += Character.charCount(d);
          if (!Character.isLetterOrDigit(d) || isMathLetter(d)) continue;
          String lower = new String(Character.toChars(Character.toLowerCase(d)));
          for (int c = 0; c < lower.length(); c++) {
            if (n == origin.length) origin = Arrays.copyOf(origin, origin.length * 2);
            out.append(lower.charAt(c));
            origin[n++] = i;
          }
        }
      }
      i += width;
    }
    return new NormalizedText(source, out.toString(), Arrays.copyOf(origin, n));
  }

  private static boolean isAsciiLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isMathLetter(int cp) {
    return (cp >= 0x0370 && cp <= 0x03FF) || (cp >= 0x1D400 && cp <= 0x1D7FF);
  }

  /** The reduced text. */
  public String text() {
    return text;
  }

  /** The original text. */
  public String source() {
    return source;
  }

  /**
   * Where {@code needle} (already reduced) lies in this reduced text, as {@code [from, to)}:
   * found whole, or else piece by piece ({@link #CHUNK} characters each, in order, each within
   * {@link #SLACK} of the last) with at least half of the pieces found, the match running from
   * the first found piece to the end of the last. Empty when it is not there.
   */
  public Optional<int[]> find(String needle) {
    if (needle.isEmpty()) return Optional.empty();
    int whole = text.indexOf(needle);
    if (whole >= 0) return Optional.of(new int[] {whole, whole + needle.length()});
    int pieces = needle.length() / CHUNK;
    if (pieces < 2) return Optional.empty();
    int found = 0;
    int first = -1;
    int last = -1;
    for (int p = 0; p < pieces; p++) {
      int from = p * CHUNK;
      String piece = needle.substring(from, p == pieces - 1 ? needle.length() : from + CHUNK);
      int at = first < 0 ? text.indexOf(piece) : text.indexOf(piece, last);
      // A piece that was skipped (not found) widens the window by its own length.
      if (at < 0 || (first >= 0 && at > last + SLACK + (p - found) * CHUNK)) continue;
      if (first < 0) first = at;
      found++;
      last = at + piece.length();
    }
    if (found * 2 < pieces) return Optional.empty();
    return Optional.of(new int[] {first, last});
  }

  /** {@code needle} (original text) located in this text, as an interval of the original. */
  public Optional<Interval> locate(String needle) {
    return find(of(needle).text()).map(r -> toSource(r[0], r[1]));
  }

  /** The original interval that reduced characters {@code [from, to)} came from. */
  public Interval toSource(int from, int to) {
    int lastStart = origin[to - 1];
    return new Interval(origin[from], lastStart + Character.charCount(source.codePointAt(lastStart)));
  }
}
