package arbor.jobs.bench.rlm;

import arbor.conf.PromptStrategy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import arbor.rlm.Prompts;
import arbor.rlm.RlmLimits;
import arbor.rlm.policy.ExpertPolicy;
import arbor.rlm.sandbox.InProcessSandbox;
import arbor.rlm.sandbox.SandboxLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ParagraphEvidenceTest {
  static final String PAPER = "# Title\n\n## Abstract\n\nWe study X.\n\n## Data\n\nWe use the WMT corpus. It is big.\n\n"
      + "Results improve by 2 BLEU.\n";

  @Test
  void paragraphsAreBlankLineBlocksWithoutHeadings() {
    assertEquals(List.of("We study X.", "We use the WMT corpus. It is big.", "Results improve by 2 BLEU."),
        ParagraphEvidence.paragraphs(PAPER));
  }

  @Test
  void aSpanCountsForTheParagraphThatHoldsIt() {
    List<String> paras = ParagraphEvidence.paragraphs(PAPER);
    assertEquals(Set.of("We use the WMT corpus. It is big."),
        ParagraphEvidence.paragraphsOf(List.of("the WMT corpus", "not in the paper"), paras));
  }

  @Test
  void f1FollowsQaspersRules() {
    assertEquals(1.0, ParagraphEvidence.f1(Set.of(), Set.of()));
    assertEquals(0.0, ParagraphEvidence.f1(Set.of("a"), Set.of()));
    // precision 1/2, recall 1/1: F1 = 2 * 0.5 * 1 / 1.5 = 2/3
    assertEquals(2.0 / 3, ParagraphEvidence.f1(Set.of("a", "b"), Set.of("a")), 1e-9);
    // best annotator: the second one matches exactly
    assertEquals(1.0, ParagraphEvidence.bestF1(Set.of("b"), List.of(List.of("a"), List.of("b"))));
  }

  @Test
  void bm25RanksTheParagraphWithTheQuestionTermsFirst() {
    List<String> paras = ParagraphEvidence.paragraphs(PAPER);
    try (Bm25Paragraphs bm = new Bm25Paragraphs(paras)) {
      assertEquals(1, bm.top("Which corpus do they use?", 3).getFirst());
    }
  }

  @Test
  void theExpertAndBm25RunOnRealQasperQuestions() throws Exception {
    Path qasper = Path.of(System.getProperty("arbor.repo", ".."), "..", "shared", "data", "qasper-train");
    assumeTrue(Files.exists(qasper.resolve("questions_train.json")),
        "QASPER is absent at " + qasper + ": this check needs ../shared/data/qasper-train");
    Prompts prompts = Prompts.load(Path.of(System.getProperty("arbor.repo", ".."), "conf", "prompts"),
        PromptStrategy.FULL);
    List<QasperQuestion> questions = ExpertEvidenceBench.sample(qasper, 6, 1);
    try (InProcessSandbox sandbox = new InProcessSandbox(SandboxLimits.defaults())) {
      ExpertEvidenceBench.Result r = ExpertEvidenceBench.run(qasper, questions, sandbox, prompts,
          RlmLimits.defaults(), ExpertPolicy.Settings.defaults(), 2, null);
      assertEquals(6, r.questions());
      assertEquals(0, r.notVerbatim(), "every expert span is verbatim");
      assertEquals(0, r.unfinished(), "every expert tree submits");
    }
  }
}
