package arbor.ingest;

import java.util.List;
import java.util.regex.Pattern;

/** A paper's title and abstract. */
public record FrontMatter(String title, String abstractText) {

  private static final Pattern ABSTRACT_HEADING =
      Pattern.compile("(?i)^\\s*(abstract|summary)\\s*[.:—-]?\\s*(.*)$");
  private static final Pattern END_OF_ABSTRACT = Pattern.compile(
      "(?i)^\\s*(keywords?|key words|index terms|jel\\b|\\d+\\.?\\s+introduction|introduction$).*");

  /**
   * Reads the title and abstract off the first page of a PDF: the title is the first run of
   * lines in the largest font; the abstract runs from an "Abstract" heading (alone or leading
   * its paragraph) to the keywords, the introduction heading, or a line in a larger font.
   */
  public static FrontMatter fromPdf(PdfText pdf) {
    List<PdfText.Line> lines = pdf.firstPage();
    String title = detectTitle(lines);
    if (title.length() < 8 && !pdf.infoTitle().isBlank()) title = pdf.infoTitle();
    return new FrontMatter(title, detectAbstract(lines));
  }

  private static String detectTitle(List<PdfText.Line> lines) {
    int scan = Math.min(lines.size(), 25);
    float max = 0;
    for (int i = 0; i < scan; i++) {
      if (isWordy(lines.get(i).text())) max = Math.max(max, lines.get(i).fontSize());
    }
    StringBuilder title = new StringBuilder();
    boolean inTitle = false;
    for (int i = 0; i < scan; i++) {
      PdfText.Line line = lines.get(i);
      boolean largest = Math.abs(line.fontSize() - max) < 0.5f && isWordy(line.text());
      if (largest) {
        title.append(title.isEmpty() ? "" : "\n").append(line.text());
        inTitle = true;
      } else if (inTitle) {
        break;
      }
    }
    // Footnote marks after a title (∗, †) belong to the footnote, not the title.
    return CleanText.join(title.toString()).replaceAll("[\\s∗*†‡]+$", "");
  }

  private static boolean isWordy(String s) {
    return s.chars().filter(Character::isLetter).count() >= 3;
  }

  private static String detectAbstract(List<PdfText.Line> lines) {
    for (int i = 0; i < lines.size(); i++) {
      var heading = ABSTRACT_HEADING.matcher(lines.get(i).text());
      if (!heading.matches()) continue;
      StringBuilder text = new StringBuilder(heading.group(2));
      float bodyFont = i + 1 < lines.size() ? lines.get(i + 1).fontSize() : 0;
      for (int j = i + 1; j < lines.size(); j++) {
        PdfText.Line line = lines.get(j);
        if (END_OF_ABSTRACT.matcher(line.text()).matches() || line.fontSize() > bodyFont + 1.5f) break;
        text.append('\n').append(line.text());
      }
      String abstractText = CleanText.join(text.toString());
      if (abstractText.length() >= 40) return abstractText;
    }
    return "";
  }

  boolean isComplete() {
    return !title.isBlank() && !abstractText.isBlank();
  }
}
