package arbor.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.NoiseSettings;
import arbor.ingest.PdfNoise;
import java.util.List;
import org.junit.jupiter.api.Test;

class NormalizedTextTest {

  @Test
  void ligaturesHyphenatedLineBreaksCaseAndPunctuationAllAlign() {
    String noisy = "Intro.\nThe \uFB01ne-tuned mo-\ndel, with PARAMETERS.\n";
    NormalizedText paper = NormalizedText.of(noisy);
    Interval at = paper.locate("the fine-tuned model with parameters").orElseThrow();
    // From the 'T' of "The" (offset 7) to the last 's' of "PARAMETERS" (the '.' is not a letter).
    assertEquals(7, at.start());
    assertEquals(noisy.indexOf("PARAMETERS") + 10, at.end());
    assertEquals("The \uFB01ne-tuned mo-\ndel, with PARAMETERS", noisy.substring(at.start(), at.end()));
  }

  @Test
  void texControlWordsAndGreekLettersAreDroppedOnBothSides() {
    // Extraction drops math glyphs; the clean text still has them.
    NormalizedText paper = NormalizedText.of("a rate of 0.5 is used for decay.");
    assertTrue(paper.locate("a rate $\\alpha$ of 0.5 is used for decay").isPresent());
    assertTrue(paper.locate("a rate \u03b1 of 0.5 is used for decay").isPresent());
  }

  @Test
  void aParagraphBrokenByARunningHeaderAndPageNumberIsFoundPieceByPiece() {
    String clean = "Recursive language models read long contexts through a programming environment in which "
        + "the context is a variable that code can search and slice, and in which the model can call "
        + "itself on smaller parts of the context, so that no single call ever reads the whole input at once.";
    String title = "A Study of Recursive Reading for Scientific Evidence";
    // Five lines per page: the paragraph runs over a page break with a header and a page number.
    String noisy = new PdfNoise(new NoiseSettings(3, 60, 1.0, 1.0, 5, true))
        .apply("p1", title, "Short abstract here.", List.of("First paragraph of the body.", clean), List.of("", ""));
    assertTrue(noisy.contains("A Study of Recursive Reading for"), noisy);
    NormalizedText paper = NormalizedText.of(noisy);
    assertTrue(paper.text().indexOf(NormalizedText.of(clean).text()) < 0, "the header must break the exact match");
    Interval at = paper.locate(clean).orElseThrow();
    String found = noisy.substring(at.start(), at.end());
    assertTrue(found.startsWith("Recursive"), found);
    assertTrue(found.endsWith("once"), found);
  }

  @Test
  void textThatIsNotThereIsNotFound() {
    NormalizedText paper = NormalizedText.of("Some words about graphs and trees in a paper.");
    assertTrue(paper.locate("a sentence about protein folding that no paper here has").isEmpty());
    assertTrue(paper.locate("...").isEmpty());
  }

  @Test
  void aStartAndAnEndFarApartAreNotTheParagraph() {
    String clean = "The efficient classifier reaches a final accuracy of 91.2 per cent on the held-out "
        + "split, while the baseline, which was trained with identical hyper-parameters, reaches only 84.0 per cent.";
    String far = clean.substring(0, 60) + " " + "filler words ".repeat(40) + clean.substring(clean.length() - 60);
    assertTrue(NormalizedText.of(far).locate(clean).isEmpty());
  }

  @Test
  void everyParagraphOfSimulatedPdfNoiseIsFound() {
    List<String> paragraphs = List.of(
        "The efficient classifier reaches a final accuracy of 91.2 per cent on the held-out split, while the "
            + "baseline, which was trained with identical hyper-parameters, reaches only 84.0 per cent.",
        "Second paragraph: a shorter one, about fluffy affine flows and \uFB01ne \uFB01lters.",
        "Third: with inline math $\\alpha_i + \\beta$ and a word broken somewhere, perhaps: interdisciplinarity.");
    String noisy = new PdfNoise(new NoiseSettings(7, 38, 1.0, 1.0, 6, true))
        .apply("p", "A Paper About Noise", "An abstract.", paragraphs, paragraphs.stream().map(p -> "").toList());
    NormalizedText paper = NormalizedText.of(noisy);
    for (String p : paragraphs) assertTrue(paper.locate(p).isPresent(), p + "\nin\n" + noisy);
  }
}
