package arbor.ingest;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PdfPaperReaderTest {
  private static final String TITLE = "Sparse Evidence Selection for Recursive Readers";
  private static final String ABSTRACT = "We study how a reader that writes code can select verbatim evidence from long "
      + "scientific papers without reading them whole, and we measure the precision of the selected spans.";
  private static final List<String> BODY = List.of(
      "Recursive readers keep the document outside the model and inspect it with small programs. "
          + "This keeps the context short while the document itself may be very long indeed.",
      "Our experiments use groups of related papers. Each question needs evidence from one or several "
          + "of them, and the reader decides which papers deserve a closer look by searching first.",
      "The results show that delegation to one child per relevant paper improves recall without hurting "
          + "precision, compared with reading every paper at the top level of the tree.");

  private final PdfPaperReader reader = new PdfPaperReader(TestSettings.ingest());

  @Test
  void generatedPdfYieldsItsTitleAbstractAndParagraphs() throws Exception {
    Parsed parsed = reader.read("p1", "mem:p1.pdf", TestPdfs.paper(TITLE, ABSTRACT, BODY), Optional.empty());
    assertEquals(List.of(), parsed.errors());
    Paper paper = parsed.papers().get(0);
    assertEquals(TITLE, paper.title());
    assertEquals(ABSTRACT, paper.abstractText());
    assertEquals(BODY, paper.cleanParagraphs().subList(paper.cleanParagraphs().size() - 3, paper.cleanParagraphs().size()));
    assertEquals(Paper.NOISY_PDF, paper.noisySource());
    assertTrue(paper.noisyText().startsWith(TITLE), paper.noisyText());
    assertEquals(64, paper.contentHash().length());
  }

  @Test
  void latexSourceBesideThePdfGivesTheCleanText() throws Exception {
    String latex = """
        \\documentclass{jss}
        \\title{A Cleaner Title from \\pkg{Source}}
        \\Abstract{The abstract as the authors wrote it, with \\emph{emphasis} and a citation \\citep{x}.}
        \\begin{document}
        \\section{Introduction}
        The first paragraph of the source is long enough to count as a paragraph of the body text.

        <<echo=TRUE>>=
        x <- rnorm(10)
        @

        The second paragraph of the source mentions \\code{lm()} and ends here with a full stop.

        A third paragraph that completes the minimum number of paragraphs taken from the source.
        \\end{document}
        """;
    Parsed parsed = reader.read("p1", "mem:p1.pdf", TestPdfs.paper(TITLE, ABSTRACT, BODY),
        Optional.of(new PdfPaperReader.Companion("mem:p1.Rnw", latex.getBytes(StandardCharsets.UTF_8))));
    Paper paper = parsed.papers().get(0);
    assertEquals("A Cleaner Title from Source", paper.title());
    assertEquals("The abstract as the authors wrote it, with emphasis and a citation.", paper.abstractText());
    assertEquals(3, paper.cleanParagraphs().size());
    assertEquals("The second paragraph of the source mentions lm() and ends here with a full stop.", paper.cleanParagraphs().get(1));
    assertTrue(paper.noisyText().contains("Recursive readers keep"), "noisy text stays the PDF's");
  }

  @Test
  void corruptPdfIsAnErrorThatSaysSo() {
    Parsed parsed = reader.read("bad", "mem:bad.pdf", "%PDF-1.4 this is not really a pdf".getBytes(), Optional.empty());
    assertTrue(parsed.papers().isEmpty());
    assertTrue(parsed.errors().get(0).reason().startsWith("corrupt or truncated PDF"), parsed.errors().toString());
  }

  @Test
  void truncatedPdfIsAnError() throws Exception {
    byte[] pdf = TestPdfs.paper(TITLE, ABSTRACT, BODY);
    Parsed parsed = reader.read("cut", "mem:cut.pdf", Arrays.copyOf(pdf, pdf.length / 3), Optional.empty());
    assertEquals(1, parsed.errors().size(), parsed.toString());
    assertEquals("mem:cut.pdf", parsed.errors().get(0).path());
  }

  @Test
  void encryptedPdfIsAnErrorNamingTheCause() throws Exception {
    Parsed parsed = reader.read("enc", "mem:enc.pdf", TestPdfs.encrypted(TestPdfs.paper(TITLE, ABSTRACT, BODY)), Optional.empty());
    assertEquals("encrypted PDF: it needs a password to open", parsed.errors().get(0).reason());
  }

  @Test
  void pdfWithoutTextLayerIsAnError() throws Exception {
    Parsed parsed = reader.read("scan", "mem:scan.pdf", TestPdfs.withoutText(), Optional.empty());
    assertTrue(parsed.errors().get(0).reason().startsWith("no text layer"), parsed.errors().toString());
  }
}
