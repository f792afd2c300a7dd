package arbor.ingest;

import arbor.text.Hashes;
import arbor.conf.IngestSettings;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * A PDF, and the LaTeX/Sweave source beside it when there is one. The PDF's text layer is the
 * noisy text; the source, when present, gives the clean title, abstract and paragraphs, else
 * they are recovered from the PDF itself.
 */
public final class PdfPaperReader {
  public static final String SOURCE = "pdf";

  private final IngestSettings settings;

  public PdfPaperReader(IngestSettings settings) {
    this.settings = settings;
  }

  /** The LaTeX or Sweave file beside a PDF. */
  public record Companion(String path, byte[] bytes) {}

  public Parsed read(String paperId, String path, byte[] pdf, Optional<Companion> companion) {
    PdfText text;
    try {
      text = PdfText.extract(pdf);
    } catch (PdfText.UnreadablePdf e) {
      return Parsed.error(SOURCE, path, e.getMessage());
    }
    int chars = text.text().replaceAll("\\s", "").length();
    if (chars < settings.minTextChars()) {
      return Parsed.error(SOURCE, path, "no text layer: " + chars + " characters of text in "
          + text.pages().size() + " page(s) (a scanned PDF needs OCR first)");
    }
    double symbols = CleanText.symbolRatio(text.text());
    if (symbols > 0.2) {
      return Parsed.error(SOURCE, path, String.format("garbled text layer: %.0f%% of its characters are symbols "
          + "(fonts without a Unicode mapping); the text is unreadable", symbols * 100));
    }
    FrontMatter front = FrontMatter.fromPdf(text);
    List<String> paragraphs = PdfParagraphs.of(text, front);
    List<String> sections = Paper.noSections(paragraphs);
    byte[] companionBytes = new byte[0];
    if (companion.isPresent()) {
      companionBytes = companion.get().bytes();
      LatexSource.Text latex = LatexSource.parse(decodeSource(companionBytes));
      if (!latex.title().isBlank()) front = new FrontMatter(latex.title(), orElse(latex.abstractText(), front.abstractText()));
      if (latex.paragraphs().size() >= 3) {
        paragraphs = latex.paragraphs();
        sections = latex.sections();
      }
    }
    if (front.abstractText().isBlank() && !paragraphs.isEmpty()) {
      // Some papers have no abstract; the opening paragraph stands in, as the policy's context
      // and the paper embeddings both expect one.
      front = new FrontMatter(front.title(), paragraphs.get(0));
    }
    if (front.title().isBlank()) {
      return Parsed.error(SOURCE, path, "no title found on the first page and none in the document information");
    }
    return Parsed.of(new Paper(paperId, front.title(), front.abstractText(), SOURCE, path, paragraphs, sections,
        text.text(), Paper.NOISY_PDF, settings.defaultScore(), Hashes.sha256(pdf, companionBytes)));
  }

  private static String orElse(String value, String fallback) {
    return value.isBlank() ? fallback : value;
  }

  /** LaTeX sources are UTF-8 or, in older packages, Latin-1. */
  private static String decodeSource(byte[] bytes) {
    try {
      return TextFiles.utf8(bytes);
    } catch (TextFiles.NotText e) {
      return new String(bytes, StandardCharsets.ISO_8859_1);
    }
  }
}
