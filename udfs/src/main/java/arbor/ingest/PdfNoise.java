package arbor.ingest;

import arbor.conf.NoiseSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

/**
 * Simulated PDF extraction noise, for papers that come without a PDF, so that the policy always
 * reads PDF-like text. Clean text is laid out into pages of fixed-width lines, then degraded the
 * way PDF text extraction degrades it:
 *
 * <ol>
 *   <li>line wrapping at {@code line_width} characters (paragraph breaks survive as line breaks,
 *       blank lines do not);
 *   <li>end-of-line hyphenation: a word that does not fit is split with a hyphen, with
 *       probability {@code hyphenation};
 *   <li>ligatures: {@code ffi ffl ff fi fl} become single glyphs with probability
 *       {@code ligatures} each;
 *   <li>a running header (the short title) on every page after the first and a page number at
 *       the foot of every page, every {@code lines_per_page} lines;
 *   <li>mathematical glyphs (Greek letters, operators, inline TeX) are dropped when
 *       {@code drop_math} is set.
 * </ol>
 *
 * Section headings are laid out as a PDF shows them, a numbered line of their own ("3.2
 * Datasets") before the section's first paragraph: a reader of the noisy text finds the parts
 * of a paper by them, as it would in an extracted PDF.
 *
 * The randomness is seeded by {@code seed} and the paper id: the same paper always gets the same
 * noise.
 */
public final class PdfNoise {
  private static final Pattern INLINE_TEX = Pattern.compile("\\\\[a-zA-Z]+|[$^_{}]");
  private static final String[][] LIGATURES = {
      {"ffi", "\uFB03"}, {"ffl", "\uFB04"}, {"ff", "\uFB00"}, {"fi", "\uFB01"}, {"fl", "\uFB02"}};

  private final NoiseSettings settings;

  public PdfNoise(NoiseSettings settings) {
    this.settings = settings;
  }

  /**
   * @param sections each paragraph's heading path ({@link Paper#NESTED} between levels, empty for
   *     none), as {@link Paper#sections()}
   */
  public String apply(String paperId, String title, String abstractText, List<String> paragraphs, List<String> sections) {
    if (sections.size() != paragraphs.size()) {
      throw new IllegalArgumentException("paper " + paperId + ": " + sections.size() + " section heading(s) for "
          + paragraphs.size() + " paragraph(s)");
    }
    SplittableRandom random = new SplittableRandom(settings.seed() * 1_000_003L + paperId.hashCode());
    List<String> lines = new ArrayList<>();
    wrap(title, random, lines);
    lines.add("Abstract");
    wrap(abstractText, random, lines);
    List<String> path = List.of();
    List<Integer> numbers = new ArrayList<>();
    for (int i = 0; i < paragraphs.size(); i++) {
      List<String> next = sections.get(i).isBlank() ? List.of() : List.of(sections.get(i).split(Paper.NESTING_MARK));
      int same = 0;
      while (same < Math.min(path.size(), next.size()) && path.get(same).strip().equals(next.get(same).strip())) same++;
      for (int depth = same; depth < next.size(); depth++) {
        while (numbers.size() > depth + 1) numbers.removeLast();
        if (numbers.size() == depth + 1) numbers.set(depth, numbers.get(depth) + 1);
        else numbers.add(1);
        wrap(number(numbers) + " " + next.get(depth).strip(), random, lines);
      }
      path = next;
      wrap(paragraphs.get(i), random, lines);
    }
    return paginate(lines, shortTitle(title));
  }

  private static String number(List<Integer> numbers) {
    return String.join(".", numbers.stream().map(String::valueOf).toList());
  }

  private void wrap(String text, SplittableRandom random, List<String> lines) {
    String degraded = ligatures(dropMath(text), random);
    StringBuilder line = new StringBuilder();
    for (String word : degraded.strip().split("\\s+")) {
      if (word.isEmpty()) continue;
      int room = settings.lineWidth() - line.length() - (line.isEmpty() ? 0 : 1);
      if (word.length() <= room) {
        if (!line.isEmpty()) line.append(' ');
        line.append(word);
        continue;
      }
      int split = hyphenationPoint(word, room, random);
      if (split > 0) {
        if (!line.isEmpty()) line.append(' ');
        line.append(word, 0, split).append('-');
        word = word.substring(split);
      }
      if (!line.isEmpty()) lines.add(line.toString());
      line.setLength(0);
      line.append(word);
    }
    if (!line.isEmpty()) lines.add(line.toString());
  }

  /** Where to split a word that overflows the line, or 0 to move it whole to the next line. */
  private int hyphenationPoint(String word, int room, SplittableRandom random) {
    int letters = 0;
    while (letters < word.length() && Character.isLetter(word.charAt(letters))) letters++;
    // Split inside the word's letters, leaving at least three on each side.
    int maxPrefix = Math.min(room - 1, letters - 3);
    if (maxPrefix < 3) return 0;
    if (random.nextDouble() >= settings.hyphenation()) return 0;
    return 3 + random.nextInt(maxPrefix - 2);
  }

  private String ligatures(String text, SplittableRandom random) {
    if (settings.ligatures() <= 0) return text;
    StringBuilder out = new StringBuilder(text.length());
    int i = 0;
    outer:
    while (i < text.length()) {
      for (String[] lig : LIGATURES) {
        if (text.startsWith(lig[0], i) && random.nextDouble() < settings.ligatures()) {
          out.append(lig[1]);
          i += lig[0].length();
          continue outer;
        }
      }
      out.append(text.charAt(i++));
    }
    return out.toString();
  }

  private String dropMath(String text) {
    if (!settings.dropMath()) return text;
    String s = INLINE_TEX.matcher(text).replaceAll("");
    StringBuilder out = new StringBuilder(s.length());
    s.codePoints().filter(cp -> !isMathGlyph(cp)).forEach(out::appendCodePoint);
    return out.toString();
  }

  private static boolean isMathGlyph(int cp) {
    return (cp >= 0x0370 && cp <= 0x03FF) // Greek
        || (cp >= 0x2200 && cp <= 0x22FF) // mathematical operators
        || (cp >= 0x27C0 && cp <= 0x27EF) || (cp >= 0x2980 && cp <= 0x2AFF)
        || (cp >= 0x1D400 && cp <= 0x1D7FF); // mathematical alphanumerics
  }

  private String paginate(List<String> lines, String header) {
    StringBuilder out = new StringBuilder();
    int perPage = Math.max(5, settings.linesPerPage());
    int page = 1;
    for (int start = 0; start < lines.size(); start += perPage, page++) {
      if (page > 1) out.append(page % 2 == 0 ? page + " " + header : header + " " + page).append('\n');
      for (String line : lines.subList(start, Math.min(lines.size(), start + perPage))) {
        out.append(line).append('\n');
      }
      if (page == 1) out.append(page).append('\n');
    }
    return out.toString().strip();
  }

  private static String shortTitle(String title) {
    String[] words = title.strip().split("\\s+");
    return words.length <= 6 ? title.strip() : String.join(" ", java.util.Arrays.copyOf(words, 6));
  }
}
