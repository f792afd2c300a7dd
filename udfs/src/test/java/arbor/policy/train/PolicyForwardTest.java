package arbor.policy.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import arbor.policy.files.HostTensor;
import arbor.policy.files.TensorDtype;
import arbor.policy.generate.Generation;
import arbor.policy.generate.GenerationEngine;
import arbor.policy.generate.SamplingParams;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import arbor.policy.model.ScratchModel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PolicyForwardTest {

  private static final ModelConfig CONFIG = ModelConfig.qwen3(64, 32, 64, 2, 4, 2, 8, false);
  private static final double TEMPERATURE = 0.8;

  private static Map<String, HostTensor> weights(long seed) {
    Map<String, HostTensor> m = new HashMap<>();
    for (HostTensor t : ScratchModel.weights(CONFIG, seed, TensorDtype.F32)) {
      float[] v = t.values().clone();
      if (!t.name().endsWith("norm.weight")) {
        for (int i = 0; i < v.length; i++) {
          v[i] *= 5;  // peaked distributions: log-probs far from uniform
        }
      }
      m.put(t.name(), new HostTensor(t.name(), t.dtype(), t.shape(), v));
    }
    return m;
  }

  @Test
  void learnerLogProbsEqualTheEnginesRecordedOnes() {
    try (Qwen3Model model = Qwen3Model.create(CONFIG, weights(9), Device.cpu())) {
      List<ResponseSample> samples = new ArrayList<>();
      List<Generation> generations = new ArrayList<>();
      try (GenerationEngine engine = new GenerationEngine(model,
          new GenerationEngine.Options(8, 5))) {
        for (int i = 0; i < 6; i++) {
          int[] prompt = new int[4 + 3 * i];
          for (int j = 0; j < prompt.length; j++) {
            prompt[j] = (11 * i + 5 * j + 2) % CONFIG.vocabSize();
          }
          Generation g = engine.generate(prompt, new SamplingParams(TEMPERATURE, 0.95, 0,
              5 + 2 * i, 77 + i, Set.of()));
          samples.add(new ResponseSample(prompt, g.tokenIds()));
          generations.add(g);
        }
      }
      PolicyForward forward = new PolicyForward(model, TEMPERATURE, 3);
      // A budget of 60 padded tokens forces several micro-batches with padding.
      List<List<Integer>> batches = MicroBatches.byTokenBudget(samples, 60);
      assertTrue(batches.size() > 1);
      double maxDiff = 0;
      for (List<Integer> batch : batches) {
        for (boolean frozen : new boolean[] {false, true}) {
          try (NDManager work = model.newWorkManager()) {
            List<ResponseSample> rows = batch.stream().map(samples::get).toList();
            // The frozen path (chunked attention, no autograd) scores the reference policy.
            ResponseLogProbs out = frozen ? forward.scoreFrozen(work, rows)
                : forward.score(work, rows);
            float[] lp = out.logProbs().toFloatArray();
            float[] mask = out.mask().toFloatArray();
            int cols = (int) out.logProbs().getShape().get(1);
            for (int row = 0; row < batch.size(); row++) {
              float[] recorded = generations.get(batch.get(row)).logProbs();
              for (int j = 0; j < cols; j++) {
                assertEquals(j < recorded.length ? 1f : 0f, mask[row * cols + j]);
                if (j < recorded.length) {
                  maxDiff = Math.max(maxDiff, Math.abs(lp[row * cols + j] - recorded[j]));
                }
              }
            }
          }
        }
      }
      assertTrue(maxDiff < 1e-4, "max |learner - engine| log-prob = " + maxDiff);
    }
  }

  @Test
  void entropyIsThatOfTheTemperatureScaledDistribution() {
    try (Qwen3Model model = Qwen3Model.create(CONFIG, weights(3), Device.cpu());
        NDManager work = model.newWorkManager()) {
      int[] prompt = {4, 8, 15};
      int[] response = {16, 23};
      ResponseLogProbs out = new PolicyForward(model, TEMPERATURE)
          .score(work, List.of(new ResponseSample(prompt, response)));
      NDArray logits = model.forward(work.create(new long[] {4, 8, 15, 16, 23},
          new Shape(1, 5)));
      float[] all = logits.toFloatArray();
      int v = CONFIG.vocabSize();
      for (int j = 0; j < response.length; j++) {
        int pos = prompt.length - 1 + j;
        double max = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < v; k++) {
          max = Math.max(max, all[pos * v + k] / TEMPERATURE);
        }
        double z = 0;
        for (int k = 0; k < v; k++) {
          z += Math.exp(all[pos * v + k] / TEMPERATURE - max);
        }
        double entropy = 0;
        for (int k = 0; k < v; k++) {
          double lp = all[pos * v + k] / TEMPERATURE - max - Math.log(z);
          entropy -= Math.exp(lp) * lp;
        }
        assertEquals(entropy, out.entropy().toFloatArray()[j], 1e-4);
      }
    }
  }

  @Test
  void gradientsOfTheLogProbsMatchFiniteDifferences() {
    String name = "model.layers.1.self_attn.k_norm.weight";
    int element = 3;
    List<ResponseSample> batch = List.of(
        new ResponseSample(new int[] {1, 2, 3, 4}, new int[] {5, 6, 7}),
        new ResponseSample(new int[] {9, 8}, new int[] {7, 6, 5, 4, 3}));
    float autograd;
    try (Qwen3Model model = Qwen3Model.create(CONFIG, weights(5), Device.cpu())) {
      model.setTrainable(true);
      try (NDManager work = model.newWorkManager();
          GradientCollector gc = Engine.getInstance().newGradientCollector()) {
        gc.backward(loss(model, work, batch));
        autograd = model.parameters().get(name).getGradient().toFloatArray()[element];
      }
    }
    double eps = 1e-2;
    double numeric = (lossWith(name, element, eps, batch) - lossWith(name, element, -eps, batch))
        / (2 * eps);
    assertTrue(Math.abs(numeric) > 1e-3, "the chosen weight should matter: " + numeric);
    assertEquals(numeric, autograd, 0.03 * Math.abs(numeric),
        "autograd " + autograd + " vs finite difference " + numeric);
  }

  /** -sum of response log-probs, padding masked out. */
  private static NDArray loss(Qwen3Model model, NDManager work, List<ResponseSample> batch) {
    ResponseLogProbs out = new PolicyForward(model, TEMPERATURE).score(work, batch);
    return out.logProbs().mul(out.mask()).sum().neg();
  }

  private static double lossWith(String name, int element, double delta,
      List<ResponseSample> batch) {
    Map<String, HostTensor> w = weights(5);
    HostTensor t = w.get(name);
    float[] v = t.values().clone();
    v[element] += (float) delta;
    w.put(name, new HostTensor(name, t.dtype(), t.shape(), v));
    try (Qwen3Model model = Qwen3Model.create(CONFIG, w, Device.cpu());
        NDManager work = model.newWorkManager()) {
      return loss(model, work, batch).getFloat();
    }
  }
}
