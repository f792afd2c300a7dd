package arbor.ingest;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.encryption.InvalidPasswordException;
import org.apache.pdfbox.text.PDFTextStripper;
import org.apache.pdfbox.text.TextPosition;

/**
 * The text layer of a PDF as PDFBox extracts it: the noisy text the policy sees, its pages, the
 * paragraphs PDFBox detects, and the first page's lines with their font sizes (for title and
 * abstract detection).
 */
public record PdfText(
    String text, List<String> pages, List<String> paragraphs, List<Line> firstPage, String infoTitle) {

  /** One line of the first page, with the largest font size on it. */
  public record Line(String text, float fontSize) {}

  /** Thrown for a PDF that PDFBox cannot open or read; the message says why. */
  public static final class UnreadablePdf extends Exception {
    UnreadablePdf(String message, Throwable cause) { super(message, cause); }
  }

  private static final String PARAGRAPH_MARK = "\u2029";
  private static final String PAGE_MARK = "\f";

  public static PdfText extract(byte[] pdf) throws UnreadablePdf {
    try (PDDocument document = Loader.loadPDF(pdf)) {
      Stripper stripper = new Stripper();
      stripper.setParagraphEnd(PARAGRAPH_MARK);
      stripper.setPageEnd(PAGE_MARK);
      String marked = stripper.getText(document);
      List<String> pages = new ArrayList<>();
      for (String page : marked.split(PAGE_MARK, -1)) {
        if (!page.isBlank()) pages.add(page.replace(PARAGRAPH_MARK, ""));
      }
      List<String> paragraphs = new ArrayList<>();
      for (String p : marked.replace(PAGE_MARK, PARAGRAPH_MARK).split(PARAGRAPH_MARK)) {
        if (!p.isBlank()) paragraphs.add(p);
      }
      String text = String.join("\n", pages).strip();
      String infoTitle = document.getDocumentInformation().getTitle();
      return new PdfText(text, pages, paragraphs, stripper.firstPage, infoTitle == null ? "" : infoTitle.strip());
    } catch (InvalidPasswordException e) {
      throw new UnreadablePdf("encrypted PDF: it needs a password to open", e);
    } catch (IOException | RuntimeException e) {
      // PDFBox reports truncated and corrupt files as IOExceptions, and a few malformed
      // structures as runtime exceptions; both mean "this file cannot be read".
      throw new UnreadablePdf("corrupt or truncated PDF: " + e.getMessage(), e);
    }
  }

  /** Records the lines of page 1 with their font sizes while PDFBox writes the text. */
  private static final class Stripper extends PDFTextStripper {
    final List<Line> firstPage = new ArrayList<>();
    private final StringBuilder line = new StringBuilder();
    private float lineFont;

    @Override
    protected void writeString(String text, List<TextPosition> positions) throws IOException {
      if (getCurrentPageNo() == 1) {
        line.append(text);
        for (TextPosition p : positions) lineFont = Math.max(lineFont, p.getFontSizeInPt());
      }
      super.writeString(text, positions);
    }

    @Override
    protected void writeWordSeparator() throws IOException {
      if (getCurrentPageNo() == 1) line.append(' ');
      super.writeWordSeparator();
    }

    @Override
    protected void writeLineSeparator() throws IOException {
      flushLine();
      super.writeLineSeparator();
    }

    @Override
    protected void writeParagraphEnd() throws IOException {
      flushLine();
      super.writeParagraphEnd();
    }

    @Override
    protected void endPage(org.apache.pdfbox.pdmodel.PDPage page) throws IOException {
      flushLine();
      super.endPage(page);
    }

    private void flushLine() {
      if (getCurrentPageNo() == 1 && !line.isEmpty()) {
        String text = line.toString().strip();
        if (!text.isEmpty()) firstPage.add(new Line(text, lineFont));
      }
      line.setLength(0);
      lineFont = 0;
    }
  }
}
