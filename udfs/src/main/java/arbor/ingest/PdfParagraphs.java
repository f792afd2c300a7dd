package arbor.ingest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Clean body paragraphs recovered from a PDF's own text, for PDFs without a LaTeX source beside
 * them: PDFBox's paragraphs, minus the front matter, running headers and footers, page numbers,
 * and blocks that are mostly not prose (tables, code, formulas); lines joined and de-hyphenated.
 */
final class PdfParagraphs {
  private PdfParagraphs() {}

  private static final Pattern KEYWORDS = Pattern.compile("(?i)(keywords?|key words|jel classification)\\s*:");
  /** A numbered section heading that PDFBox glued to the paragraph below it. */
  private static final Pattern HEADING = Pattern.compile("^\\d+(\\.\\d+)*\\.?\\s+\\p{Lu}[^.]{0,70}$");
  private static final Pattern PAGE_NUMBER = Pattern.compile("^\\s*(page\\s*)?\\d{1,4}\\s*$", Pattern.CASE_INSENSITIVE);

  static List<String> of(PdfText pdf, FrontMatter front) {
    Map<String, Integer> lineCounts = repeatedLines(pdf.pages());
    List<String> joined = new ArrayList<>();
    for (String raw : pdf.paragraphs()) {
      StringBuilder kept = new StringBuilder();
      for (String line : raw.split("\n")) {
        String key = line.strip();
        if (key.isEmpty() || PAGE_NUMBER.matcher(key).matches() || lineCounts.getOrDefault(key, 0) >= 3) continue;
        if (kept.isEmpty() && HEADING.matcher(key).matches()) continue;
        kept.append(line).append('\n');
      }
      joined.add(CleanText.join(kept.toString()));
    }
    List<String> out = new ArrayList<>();
    for (String text : joined.subList(bodyStart(joined, front), joined.size())) {
      if (text.length() >= 40 && CleanText.letterRatio(text) > 0.6 && !KEYWORDS.matcher(text).lookingAt()) out.add(text);
    }
    return out;
  }

  /** The body starts after the paragraph that ends the abstract; at 0 when that is not found. */
  private static int bodyStart(List<String> paragraphs, FrontMatter front) {
    String abstractEnd = tail(front.abstractText());
    if (abstractEnd.isEmpty()) return 0;
    for (int i = 0; i < paragraphs.size(); i++) {
      if (CleanText.normalizeForCompare(paragraphs.get(i)).contains(abstractEnd)) return i + 1;
    }
    return 0;
  }

  /** The last words of the abstract, to find where the body starts. */
  private static String tail(String abstractText) {
    String norm = CleanText.normalizeForCompare(abstractText);
    return norm.length() <= 30 ? norm : norm.substring(norm.length() - 30).strip();
  }

  /** Lines that recur across pages are running headers and footers. */
  private static Map<String, Integer> repeatedLines(List<String> pages) {
    Map<String, Integer> counts = new HashMap<>();
    for (String page : pages) {
      page.lines().map(String::strip).filter(l -> !l.isEmpty()).distinct()
          .forEach(l -> counts.merge(l, 1, Integer::sum));
    }
    return counts;
  }
}
