package arbor.ingest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.encryption.AccessPermission;
import org.apache.pdfbox.pdmodel.encryption.StandardProtectionPolicy;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

/** Writes real PDFs with known text, laid out like a paper: big title, abstract, body pages. */
public final class TestPdfs {
  private TestPdfs() {}

  private static final PDType1Font BOLD = new PDType1Font(Standard14Fonts.FontName.HELVETICA_BOLD);
  private static final PDType1Font REGULAR = new PDType1Font(Standard14Fonts.FontName.TIMES_ROMAN);

  public static byte[] paper(String title, String abstractText, List<String> paragraphs) throws IOException {
    try (PDDocument doc = new PDDocument()) {
      Writer w = new Writer(doc);
      w.line(title, BOLD, 18);
      w.gap();
      w.line("Abstract", BOLD, 10);
      w.paragraph(abstractText, 9);
      w.line("Keywords: testing, documents.", REGULAR, 9);
      w.gap();
      w.line("1. Introduction", BOLD, 13);
      for (String p : paragraphs) w.paragraph(p, 10);
      w.close();
      return save(doc);
    }
  }

  /** A PDF that needs the password "secret" to open. */
  public static byte[] encrypted(byte[] pdf) throws IOException {
    try (PDDocument doc = org.apache.pdfbox.Loader.loadPDF(pdf)) {
      StandardProtectionPolicy policy = new StandardProtectionPolicy("owner", "secret", new AccessPermission());
      policy.setEncryptionKeyLength(128);
      doc.protect(policy);
      return save(doc);
    }
  }

  /** Pages with drawn shapes and no text: what a scan without OCR looks like to PDFBox. */
  public static byte[] withoutText() throws IOException {
    try (PDDocument doc = new PDDocument()) {
      PDPage page = new PDPage(PDRectangle.A4);
      doc.addPage(page);
      try (PDPageContentStream s = new PDPageContentStream(doc, page)) {
        s.addRect(100, 100, 300, 400);
        s.fill();
      }
      return save(doc);
    }
  }

  private static byte[] save(PDDocument doc) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    doc.save(out);
    return out.toByteArray();
  }

  /** Lays out lines top to bottom, starting a new page when one is full. */
  private static final class Writer {
    private final PDDocument doc;
    private PDPageContentStream stream;
    private float y;

    Writer(PDDocument doc) throws IOException {
      this.doc = doc;
      newPage();
    }

    void newPage() throws IOException {
      if (stream != null) stream.close();
      PDPage page = new PDPage(PDRectangle.A4);
      doc.addPage(page);
      stream = new PDPageContentStream(doc, page);
      y = 780;
    }

    void line(String text, PDType1Font font, float size) throws IOException {
      if (y < 60) newPage();
      stream.beginText();
      stream.setFont(font, size);
      stream.newLineAtOffset(60, y);
      stream.showText(text);
      stream.endText();
      y -= size * 1.35f;
    }

    void gap() {
      y -= 14;
    }

    void paragraph(String text, float size) throws IOException {
      for (String l : wrap(text, 85)) line(l, REGULAR, size);
      y -= 8;
    }

    void close() throws IOException {
      stream.close();
    }

    private static List<String> wrap(String text, int width) {
      List<String> lines = new ArrayList<>();
      StringBuilder line = new StringBuilder();
      for (String word : text.split(" ")) {
        if (line.length() + word.length() + 1 > width) {
          lines.add(line.toString());
          line.setLength(0);
        }
        if (!line.isEmpty()) line.append(' ');
        line.append(word);
      }
      if (!line.isEmpty()) lines.add(line.toString());
      return lines;
    }
  }
}
