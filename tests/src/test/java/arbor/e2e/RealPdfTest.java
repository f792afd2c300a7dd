package arbor.e2e;

import static org.junit.jupiter.api.Assertions.*;

import arbor.ingest.LatexSource;
import arbor.ingest.Paper;
import arbor.ingest.Parsed;
import arbor.ingest.PdfPaperReader;
import arbor.ingest.TestSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Title and abstract detection on real Journal of Statistical Software papers, from the PDF alone. */
class RealPdfTest {
  private final PdfPaperReader reader = new PdfPaperReader(TestSettings.ingest());

  @Test
  void titleFromThePdfAloneMatchesTheAuthorsLatexTitle() throws Exception {
    List<Path> pdfs;
    try (Stream<Path> s = Files.walk(TestEnv.realCorpus())) {
      pdfs = s.filter(p -> p.toString().endsWith(".pdf")).sorted().toList();
    }
    assertTrue(pdfs.size() >= 5, "the three packages hold five papers: " + pdfs);
    for (Path pdf : pdfs) {
      Path rnw = Path.of(pdf.toString().replace(".pdf", ".Rnw"));
      LatexSource.Text latex = LatexSource.parse(Files.readString(rnw, StandardCharsets.ISO_8859_1));
      Parsed parsed = reader.read("x", pdf.toString(), Files.readAllBytes(pdf), Optional.empty());
      assertEquals(List.of(), parsed.errors(), pdf.toString());
      Paper paper = parsed.papers().get(0);
      assertEquals(latex.title(), paper.title(), pdf.toString());
      assertEquals(words(latex.abstractText(), 8), words(paper.abstractText(), 8), "abstract of " + pdf);
      assertTrue(paper.cleanParagraphs().size() > 20, pdf + " has a body");
      assertTrue(paper.noisyText().length() > 10_000);
    }
  }

  @Test
  void tspPaperReadsAsExpected() throws Exception {
    Path pdf = TestEnv.realCorpus().resolve("r-cran-tsp/TSP.pdf");
    Paper paper = reader.read("tsp", pdf.toString(), Files.readAllBytes(pdf), Optional.empty()).papers().get(0);
    assertEquals("TSP – Infrastructure for the Traveling Salesperson Problem", paper.title());
    assertTrue(paper.abstractText().startsWith("The traveling salesperson problem (also known as traveling salesman problem or TSP) is a well known"));
    assertTrue(paper.abstractText().endsWith("one of the best exact TSP solvers currently available."), paper.abstractText());
    // PDF noise the policy must cope with: hyphenated line ends survive in the noisy text only.
    assertTrue(paper.noisyText().contains("com-\npared"), "real end-of-line hyphenation in the noisy text");
    assertTrue(paper.cleanParagraphs().stream().anyMatch(p -> p.contains("have to be compared.")), "joined in the clean text");
  }

  private static String words(String text, int n) {
    String[] w = text.split("\\s+");
    return String.join(" ", java.util.Arrays.copyOf(w, Math.min(n, w.length)));
  }
}
