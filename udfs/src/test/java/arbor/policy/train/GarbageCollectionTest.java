package arbor.policy.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.LearnerSettings;
import arbor.policy.model.Qwen3Model;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A training step computes the same weights whether or not the garbage collector runs between
 * its forward and backward passes. It did not: autograd kept constants DJL had wrapped around
 * Java buffers (the temperature, the token count of the loss, the attention scale, the KL
 * weight), the collector freed the buffers, and the backward read freed memory (on CI, an
 * infinite gradient norm in the first SFT step).
 */
class GarbageCollectionTest {

  private static final String WEIGHT = "model.layers.1.self_attn.q_proj.weight";

  /** Calls the collector in a loop until closed: frees any unreachable direct buffer at once. */
  private static final class Collector implements AutoCloseable {
    private final Thread thread = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        System.gc();
      }
    }, "gc-hammer");

    Collector() {
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      thread.interrupt();
      thread.join();
    }
  }

  /** Prompts of a few hundred tokens: long enough that a step takes several collections. */
  private static List<ResponseSample> samples() {
    Random r = new Random(11);
    List<ResponseSample> out = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      int[] prompt = r.ints(300 + 50 * i, 0, 64).toArray();
      int[] response = r.ints(30 + 5 * i, 0, 64).toArray();
      out.add(new ResponseSample(prompt, response));
    }
    return out;
  }

  private static float[] afterSft(boolean collecting) throws Exception {
    try (Qwen3Model model = PolicyUpdateTest.model();
        SftUpdate sft = new SftUpdate(model, new AdamW.Hyper(1e-2, 0.0, 0.9, 0.999, 1e-8, 1.0), 400, 64);
        Collector gc = collecting ? new Collector() : null) {
      for (int e = 0; e < 3; e++) {
        assertTrue(Double.isFinite(sft.epoch(samples(), e).loss()));
      }
      return model.parameters().get(WEIGHT).toFloatArray();
    }
  }

  private static float[] afterGrpo(boolean collecting) throws Exception {
    double temperature = 0.7;
    LearnerSettings settings = new LearnerSettings(1e-2, 0.01, 0.9, 0.999, 1e-8, 1.0, 0.2, 0.05,
        "tree", 400, 64);
    try (Qwen3Model policy = PolicyUpdateTest.model(); Qwen3Model reference = PolicyUpdate.frozenCopy(policy);
        PolicyUpdate update = new PolicyUpdate(policy, reference, settings, temperature);
        Collector gc = collecting ? new Collector() : null) {
      PolicyForward behaviour = new PolicyForward(policy, temperature);
      List<TrainSample> batch = new ArrayList<>();
      long tokens = 0;
      int i = 0;
      for (ResponseSample s : samples()) {
        float[] lp = PolicyUpdateTest.logProbs(behaviour, s.promptIds(), s.responseIds());
        batch.add(new TrainSample("q", "r" + i, 0, i % 2 == 0 ? 1 : -1, 1, s.responseIds().length,
            s.promptIds(), s.responseIds(), lp));
        tokens += s.responseIds().length;
        i++;
      }
      BatchShape shape = BatchShape.of(List.of(new BatchShape.QueryTotals("q", batch.size(), tokens, batch.size())));
      for (int step = 0; step < 3; step++) {
        assertTrue(Double.isFinite(update.step(shape, batch.iterator()).gradNorm()));
      }
      return policy.parameters().get(WEIGHT).toFloatArray();
    }
  }

  @Test
  void sftLearnsTheSameWeightsWhileTheCollectorRuns() throws Exception {
    assertArrayEquals(afterSft(false), afterSft(true));
  }

  @Test
  void aGrpoStepLearnsTheSameWeightsWhileTheCollectorRuns() throws Exception {
    assertArrayEquals(afterGrpo(false), afterGrpo(true));
  }
}
