package arbor.synthesis;

import java.text.Normalizer;
import java.util.Optional;

/**
 * Finds a clean paragraph in the noisy text the policy reads. Both sides are reduced to their
 * lower-case ASCII letters and digits (ligatures unfolded, accents dropped, a word broken by a
 * hyphen at a line end joined), so wrapping, hyphenation, ligatures and dropped symbols do not
 * matter, nor do TeX commands, which PDF text loses. Text the noise inserts inside a paragraph (a running header, a page number) does: the
 * paragraph is found by its first and last {@value #ANCHOR} kept characters (a third of a shorter one), in order, with the
 * stretch between them no shorter than the paragraph and at most half as long again (plus a header's worth for short ones).
 */
public final class NoisyLocator {
  static final int ANCHOR = 40;
  /** Shorter texts (under three of these) must match whole; longer ones are anchored by a third of their length at most. */
  private static final int MIN_ANCHOR = 8;
  private static final double MAX_STRETCH = 1.5;

  private final String noisy;
  private final String normal;
  private final int[] offsets;

  /** A half-open interval of the noisy text. */
  public record Span(int start, int end) {}

  public NoisyLocator(String noisyText) {
    this.noisy = noisyText == null ? "" : noisyText;
    StringBuilder kept = new StringBuilder(noisy.length());
    int[] at = new int[noisy.length() + 1];
    int n = 0;
    for (int i = 0; i < noisy.length(); i++) {
      char c = noisy.charAt(i);
      if (c == '-' && lineBreakFollows(noisy, i)) continue;
      if (c == '\\') {
        i = skipCommand(noisy, i);
        continue;
      }
      String folded = fold(c);
      for (int k = 0; k < folded.length(); k++) {
        kept.append(folded.charAt(k));
        at[n++] = i;
      }
    }
    this.normal = kept.toString();
    this.offsets = java.util.Arrays.copyOf(at, n);
  }

  /** Where {@code clean} is in the noisy text, or empty when it is not found there. */
  public Optional<Span> locate(String clean) {
    String c = normalise(clean);
    if (c.isEmpty()) return Optional.empty();
    if (c.length() < 3 * MIN_ANCHOR) {
      int i = normal.indexOf(c);
      return i < 0 ? Optional.empty() : Optional.of(span(i, i + c.length()));
    }
    int a = Math.min(ANCHOR, c.length() / 3);
    String head = c.substring(0, a);
    String tail = c.substring(c.length() - a);
    for (int i = normal.indexOf(head); i >= 0; i = normal.indexOf(head, i + 1)) {
      int j = normal.indexOf(tail, i + c.length() - a);
      if (j >= 0 && j + a - i <= c.length() * MAX_STRETCH + 2 * MIN_ANCHOR) return Optional.of(span(i, j + a));
    }
    return Optional.empty();
  }

  private Span span(int from, int to) {
    return new Span(offsets[from], offsets[to - 1] + 1);
  }

  /** The comparable form of a text: lower-case ASCII letters and digits only. */
  static String normalise(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '-' && lineBreakFollows(text, i)) continue;
      if (c == '\\') {
        i = skipCommand(text, i);
        continue;
      }
      out.append(fold(c));
    }
    return out.toString();
  }

  /** The last index of a TeX command ({@code \\alpha}) starting at {@code i}: PDF extraction loses them. */
  private static int skipCommand(String s, int i) {
    int k = i + 1;
    while (k < s.length() && Character.isLetter(s.charAt(k))) k++;
    return k - 1;
  }

  private static boolean lineBreakFollows(String s, int i) {
    int k = i + 1;
    while (k < s.length() && (s.charAt(k) == ' ' || s.charAt(k) == '\t')) k++;
    return k < s.length() && s.charAt(k) == '\n' && i > 0 && Character.isLetter(s.charAt(i - 1));
  }

  private static String fold(char c) {
    if (c < 128) {
      if (c >= 'A' && c <= 'Z') return String.valueOf((char) (c + 32));
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? String.valueOf(c) : "";
    }
    String d = Normalizer.normalize(String.valueOf(c), Normalizer.Form.NFKD);
    StringBuilder out = new StringBuilder();
    for (int k = 0; k < d.length(); k++) {
      char x = d.charAt(k);
      if (x < 128) out.append(fold(x));
    }
    return out.toString();
  }
}
