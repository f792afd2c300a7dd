package arbor.ingest;

import static org.junit.jupiter.api.Assertions.*;

import arbor.conf.NoiseSettings;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PdfNoiseTest {
  private static final String TITLE = "Efficient Classification of Scientific Literature";
  private static final String ABSTRACT = "We define an efficient official classifier for difficult scientific text.";
  private static final List<String> BODY = body();
  private static final List<String> UNTITLED = BODY.stream().map(p -> "").toList();

  private static List<String> body() {
    List<String> paragraphs = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      // The growing prefix shifts where lines break, so breaks fall inside long words too.
      paragraphs.add("Paragraph" + "s".repeat(i % 9) + " " + i + " describes the effective configuration of affine classifiers, "
          + "their sufficient statistics and the influence of α ≤ β on the overall performance figures.");
    }
    return paragraphs;
  }

  @Test
  void sameSeedAndPaperGiveTheSameNoise() {
    PdfNoise noise = new PdfNoise(TestSettings.noise());
    assertEquals(noise.apply("a", TITLE, ABSTRACT, BODY, UNTITLED), noise.apply("a", TITLE, ABSTRACT, BODY, UNTITLED));
    assertNotEquals(noise.apply("a", TITLE, ABSTRACT, BODY, UNTITLED), noise.apply("b", TITLE, ABSTRACT, BODY, UNTITLED));
  }

  @Test
  void linesAreWrappedAndStartWithTheTitle() {
    String text = new PdfNoise(TestSettings.noise()).apply("a", TITLE, ABSTRACT, BODY, UNTITLED);
    assertTrue(CleanText.expandLigatures(text).startsWith(TITLE), text.substring(0, 80));
    assertTrue(text.lines().allMatch(l -> l.length() <= 84), "every line fits the width");
    assertTrue(text.contains("\nAbstract\n"));
  }

  @Test
  void wordsAreHyphenatedAtLineEndsAndRejoinToTheCleanText() {
    NoiseSettings always = new NoiseSettings(1, 60, 1.0, 0.0, 1000, false);
    String text = new PdfNoise(always).apply("a", TITLE, ABSTRACT, BODY, UNTITLED);
    assertTrue(text.lines().anyMatch(l -> l.matches(".*\\p{L}-$")), "some line ends in a broken word");
    String rejoined = text.replaceAll("(\\p{L})-\\n(\\p{L})", "$1$2").replace('\n', ' ');
    assertTrue(rejoined.contains(BODY.get(7)), "undoing hyphenation and wrapping gives the clean paragraph back");
  }

  @Test
  void ligaturesRunningHeadersPageNumbersAndLostMath() {
    NoiseSettings all = new NoiseSettings(3, 84, 0.5, 1.0, 20, true);
    String text = new PdfNoise(all).apply("a", TITLE, ABSTRACT, BODY, UNTITLED);
    assertTrue(text.contains("\uFB03cient") || text.contains("\uFB00"), "ffi/ff ligature glyphs appear");
    assertFalse(text.contains("efficient"), "with probability 1 every ligature is applied");
    assertTrue(text.contains("\n2 Efficient Classification"), "even pages carry a running header with the page number");
    assertFalse(text.contains("α") || text.contains("≤"), "math glyphs are dropped");
  }

  @Test
  void sectionHeadingsAreNumberedLinesBeforeTheirFirstParagraph() {
    NoiseSettings plain = new NoiseSettings(1, 84, 0.0, 0.0, 1000, false);
    List<String> paragraphs = List.of("Intro text.", "More intro.", "Data text.", "Split text.", "Closing text.");
    List<String> sections = List.of("Introduction", "Introduction", "Experiments ::: Datasets",
        "Experiments ::: Datasets ::: Splits", "Conclusion");
    String text = new PdfNoise(plain).apply("a", "A Title", "An abstract.", paragraphs, sections);
    assertEquals(List.of("A Title", "Abstract", "An abstract.", "1 Introduction", "Intro text.", "More intro.", "2 Experiments",
        "2.1 Datasets", "Data text.", "2.1.1 Splits", "Split text.", "3 Conclusion", "Closing text.", "1"), text.lines().toList());
    assertThrows(IllegalArgumentException.class, () -> new PdfNoise(plain).apply("a", "T", "A.", paragraphs, List.of()));
  }
}
