package arbor.policy.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import arbor.policy.model.ScratchModel;
import java.util.List;
import org.junit.jupiter.api.Test;

class SftUpdateTest {

  private static final ModelConfig CONFIG = ModelConfig.qwen3(64, 32, 64, 2, 4, 2, 8, true);

  private static Qwen3Model model() {
    Qwen3Model model = ScratchModel.model(CONFIG, 7, Device.cpu());
    model.setTrainable(true);
    return model;
  }

  private static final List<ResponseSample> TEACHER = List.of(
      new ResponseSample(new int[] {1, 2, 3, 4, 5}, new int[] {10, 11, 12, 13}),
      new ResponseSample(new int[] {6, 7}, new int[] {20, 21, 22}),
      new ResponseSample(new int[] {1, 2, 3}, new int[] {30, 31}));

  /** Summed log-probability of the teacher's response tokens, prompts excluded. */
  private static double teacherLogProb(Qwen3Model model) {
    PolicyForward f = new PolicyForward(model, 1.0);
    try (NDManager work = model.newWorkManager()) {
      ResponseLogProbs lp = f.scoreFrozen(work, TEACHER);
      return lp.logProbs().mul(lp.mask()).sum().getFloat();
    }
  }

  @Test
  void theLossFallsOverEpochsAndTheTeachersTokensBecomeMoreLikely() {
    try (Qwen3Model model = model()) {
      double before = teacherLogProb(model);
      List<Double> losses = new java.util.ArrayList<>();
      // A budget that fits two of the three samples: several optimizer steps per epoch.
      try (SftUpdate sft = new SftUpdate(model, new AdamW.Hyper(1e-2, 0.0, 0.9, 0.999, 1e-8, 1.0),
          16, 4)) {
        for (int e = 0; e < 6; e++) {
          SftUpdate.Epoch epoch = sft.epoch(TEACHER);
          assertEquals(9, epoch.tokens(), "every response token, no prompt token, is a target");
          assertTrue(epoch.steps() >= 2, "steps " + epoch.steps());
          losses.add(epoch.loss());
        }
      }
      for (int e = 1; e < losses.size(); e++) {
        assertTrue(losses.get(e) < losses.get(e - 1), "loss per epoch " + losses);
      }
      // The first epoch's loss is the untrained model's mean NLL at its first micro-batch and
      // later ones, so compare against the model itself before and after.
      double after = teacherLogProb(model);
      assertTrue(after > before + 1, "teacher log-prob " + before + " -> " + after);
    }
  }

  @Test
  void noSamplesIsAClearError() {
    try (Qwen3Model model = model();
        SftUpdate sft = new SftUpdate(model, new AdamW.Hyper(1e-3, 0, 0.9, 0.999, 1e-8, 1), 64, 4)) {
      assertThrows(IllegalArgumentException.class, () -> sft.epoch(List.of()));
    }
  }

  @Test
  void aSeededEpochIsReproducibleAndItsOrderChangesWithTheSeed() {
    List<ResponseSample> many = new java.util.ArrayList<>();
    for (int i = 0; i < 12; i++) {
      many.add(new ResponseSample(new int[] {1 + i % 5, 2, 3}, new int[] {10 + i, 11 + i % 3, 40 - i}));
    }
    AdamW.Hyper hyper = new AdamW.Hyper(1e-2, 0.0, 0.9, 0.999, 1e-8, 1.0);
    double[] a = new double[2];
    double[] b = new double[2];
    for (int run = 0; run < 2; run++) {
      try (Qwen3Model model = model(); SftUpdate sft = new SftUpdate(model, hyper, 16, 4)) {
        a[run] = sft.epoch(many, 7).loss();
      }
      try (Qwen3Model model = model(); SftUpdate sft = new SftUpdate(model, hyper, 16, 4)) {
        b[run] = sft.epoch(many, 8).loss();
      }
    }
    assertEquals(a[0], a[1], 1e-6, "one seed, one order, one loss");
    assertEquals(b[0], b[1], 1e-6);
    // The same tokens in another order: the steps see other micro-batches, so the epoch differs.
    assertTrue(Math.abs(a[0] - b[0]) > 1e-6, "seeds 7 and 8 gave the same epoch: " + a[0]);
  }

  @Test
  void theScheduleWarmsUpThenDecaysToItsFloor() {
    SftUpdate.Schedule s = new SftUpdate.Schedule(1e-3, 10, 110, 0.1);
    assertEquals(1e-4, s.lr(0), 1e-12);
    assertEquals(1e-3, s.lr(9), 1e-12);
    assertEquals(1e-3, s.lr(10), 1e-12);
    assertEquals(0.55e-3, s.lr(60), 1e-12, "half way down the cosine");
    assertEquals(1e-4, s.lr(110), 1e-12);
    assertEquals(1e-4, s.lr(500), 1e-12, "held at the floor after the last step");
    assertEquals(2e-3, SftUpdate.Schedule.constant(2e-3).lr(1234), 0);
    assertThrows(IllegalArgumentException.class, () -> new SftUpdate.Schedule(1e-3, 0, 0, 0.1));
  }

  @Test
  void theHeldOutLossLearnsNothingAndFallsWhenTheSameTokensAreLearned() {
    try (Qwen3Model model = model();
        SftUpdate sft = new SftUpdate(model, new AdamW.Hyper(1e-2, 0.0, 0.9, 0.999, 1e-8, 1.0), 16, 4)) {
      double first = sft.loss(TEACHER);
      assertEquals(first, sft.loss(TEACHER), 1e-9, "scoring changes no weight");
      for (int e = 0; e < 4; e++) {
        sft.epoch(TEACHER, e);
      }
      assertTrue(sft.loss(TEACHER) < first - 0.5, first + " -> " + sft.loss(TEACHER));
    }
  }
}
