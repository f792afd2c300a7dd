package arbor.policy.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import arbor.policy.model.HostTensor;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import arbor.policy.model.TensorDtype;
import arbor.policy.model.TinyModels;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SftUpdateTest {

  private static final ModelConfig CONFIG = ModelConfig.qwen3(64, 32, 64, 2, 4, 2, 8, true);

  private static Qwen3Model model() {
    Map<String, HostTensor> m = new HashMap<>();
    for (HostTensor t : TinyModels.randomWeights(CONFIG, 7, TensorDtype.F32)) {
      m.put(t.name(), t);
    }
    Qwen3Model model = Qwen3Model.create(CONFIG, m, Device.cpu());
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
}
