package arbor.judge;

import arbor.text.Interval;
import arbor.text.NormalizedText;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.NoiseSettings;
import arbor.ingest.PdfNoise;
import arbor.synthesis.Evidence;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EmbeddedJudgeTest {
  static final EmbeddedJudge JUDGE = new EmbeddedJudge(0.5);

  static Verdict judge(JudgeCase c) {
    return JUDGE.judge(c, AlignedCase.of(c));
  }

  @Test
  void precisionIsTheShareOfPredictedCharactersInEvidenceAndRecallCreditsHalfCoveredParagraphs() {
    Map<String, String> papers = new LinkedHashMap<>();
    papers.put("A", "One two three. Four five six. Seven eight nine.");
    papers.put("B", "Alpha beta gamma delta epsilon zeta.");
    JudgeCase c = new JudgeCase("q", List.of(new Evidence("A", "Four five six."), new Evidence("B", "Alpha beta gamma delta epsilon zeta.")),
        papers, List.of("Four five", "Seven eight nine.", "Alpha beta"));
    Verdict v = judge(c);
    // Intervals end at the last letter: evidence A [15,28) = 13, B [0,35) = 35. Predicted: "Four
    // five" [15,24) = 9 inside A; "Seven eight nine" [30,46) = 16 outside; "Alpha beta" [0,10) = 10
    // inside B. Precision = 19 / 35 = 0.542857. Recall: A covered 9/13 = 0.69 >= 0.5: credit 1;
    // B 10/35 = 0.2857, / 0.5 = 0.571429; mean 0.785714. Reward F1 = 0.642089.
    assertEquals(0.642089094, v.reward(), 1e-8);
    // On the 1-10 scale: 1 + 9 * 0.542857 = 5.885714 and 1 + 9 * 0.785714 = 8.071429.
    assertEquals(5.885714286, v.precision(), 1e-8);
    assertEquals(8.071428571, v.recall(), 1e-8);
    assertTrue(v.reasoning().startsWith("1 of 2 evidence paragraphs found"), v.reasoning());
  }

  @Test
  void theEvidenceCopiedFromTheNoisyPaperScoresOneAndAnUnrelatedParagraphZero() {
    List<String> paragraphs = List.of(
        "We train the policy with group relative advantages computed over eight samples per question.",
        "The judge scores precision and recall of the selected evidence on anchored scales from one to ten, "
            + "and the reward is the sum of the two scores divided by twenty.",
        "Related work covers retrieval augmented generation and long context transformers.");
    String noisy = new PdfNoise(new NoiseSettings(5, 50, 1.0, 1.0, 6, true)).apply("p", "Tree GRPO", "An abstract.", paragraphs,
        paragraphs.stream().map(p -> "").toList());
    NormalizedText n = NormalizedText.of(noisy);
    Interval where = n.locate(paragraphs.get(1)).orElseThrow();
    String copied = noisy.substring(where.start(), where.end());
    JudgeCase good = new JudgeCase("How is the reward computed?", List.of(new Evidence("p", paragraphs.get(1))),
        Map.of("p", noisy), List.of(copied));
    assertEquals(1.0, judge(good).reward(), 1e-12);
    JudgeCase bad = new JudgeCase("How is the reward computed?", List.of(new Evidence("p", paragraphs.get(1))),
        Map.of("p", noisy), List.of(paragraphs.get(2)));
    assertEquals(0.0, judge(bad).reward(), 1e-12);
    assertEquals(1.0, judge(bad).precision(), 1e-12);
  }

  @Test
  void nothingPredictedIsRewardZeroNotAFailure() {
    JudgeCase c = new JudgeCase("q", List.of(new Evidence("A", "Four five six.")), Map.of("A", "Four five six."), List.of());
    Verdict v = judge(c);
    assertTrue(v.ok());
    assertEquals(0.0, v.reward());
  }

  @Test
  void theSameCaseAlwaysGetsTheSameVerdict() {
    JudgeCase c = new JudgeCase("q", List.of(new Evidence("A", "Four five six.")), Map.of("A", "One two. Four five six."), List.of("Four five"));
    assertEquals(judge(c), judge(c));
  }
}
