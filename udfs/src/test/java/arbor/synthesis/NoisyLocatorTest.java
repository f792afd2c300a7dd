package arbor.synthesis;

import static org.junit.jupiter.api.Assertions.*;

import arbor.conf.NoiseSettings;
import arbor.ingest.PdfNoise;
import java.util.List;
import org.junit.jupiter.api.Test;

class NoisyLocatorTest {
  private static final String CLEAN = "The efficient classifier reaches a final accuracy of 91.2 per cent on the held-out "
      + "split, while the baseline, which was trained with identical hyper-parameters, reaches only 84.0 per cent.";

  @Test
  void aParagraphIsFoundThroughHyphenationLigaturesAndAnInsertedRunningHeader() {
    String noisy = "Title line\nsome earlier text. The e\uFB03cient classi-\nfier reaches a final accuracy of 91.2 per cent\n"
        + "A Short Title 3\non the held-out split, while the baseline, which was trained with identical hyper-\n"
        + "parameters, reaches only 84.0 per cent. And then more.";
    NoisyLocator.Span s = new NoisyLocator(noisy).locate(CLEAN).orElseThrow();
    assertTrue(noisy.substring(s.start(), s.end()).startsWith("The e\uFB03cient"), noisy.substring(s.start(), s.end()));
    assertTrue(noisy.substring(s.start(), s.end()).endsWith("84.0 per cent"), noisy.substring(s.start(), s.end()));
  }

  @Test
  void textThatIsNotThereIsNotFound() {
    assertTrue(new NoisyLocator("Completely different words about other matters, at some length, twice over.").locate(CLEAN).isEmpty());
    assertTrue(new NoisyLocator("short").locate("").isEmpty());
  }

  @Test
  void theStartAndEndMustBeCloseTogether() {
    String head = CLEAN.substring(0, 60);
    String tail = CLEAN.substring(CLEAN.length() - 60);
    String far = head + " " + "filler words ".repeat(40) + tail;
    assertTrue(new NoisyLocator(far).locate(CLEAN).isEmpty(), "a start and an end far apart are not the paragraph");
  }

  @Test
  void everyParagraphOfSimulatedNoiseIsFound() {
    List<String> paragraphs = List.of(CLEAN, "Second paragraph: a shorter one, about fluffy affine flows and ﬁne ﬁlters.",
        "Third: with inline math $\\alpha_i + \\beta$ and a word broken somewhere, perhaps: interdisciplinarity.");
    PdfNoise noise = new PdfNoise(new NoiseSettings(7, 38, 1.0, 1.0, 6, true));
    String noisy = noise.apply("p", "A Paper About Noise", "An abstract.", paragraphs);
    NoisyLocator locator = new NoisyLocator(noisy);
    for (String p : paragraphs) assertTrue(locator.locate(p).isPresent(), p + "\nin\n" + noisy);
  }
}
