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
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import arbor.policy.model.ScratchModel;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The memory-linear paths against the one-graph ones: same values, same gradients. */
class RecomputingPassTest {

  // 4 query heads over 2 key heads (grouped), head dim 8, two layers, untied head.
  private static final ModelConfig CONFIG = ModelConfig.qwen3(64, 32, 64, 2, 4, 2, 8, false);
  private static final double TEMPERATURE = 0.7;

  private static Qwen3Model model() {
    Map<String, HostTensor> m = new HashMap<>();
    for (HostTensor t : ScratchModel.weights(CONFIG, 21, TensorDtype.F32)) {
      float[] v = t.values().clone();
      if (!t.name().endsWith("norm.weight")) {
        for (int i = 0; i < v.length; i++) {
          v[i] *= 3;  // sharper attention and outputs than N(0, 0.02) gives
        }
      }
      m.put(t.name(), new HostTensor(t.name(), t.dtype(), t.shape(), v));
    }
    return Qwen3Model.create(CONFIG, m, Device.cpu());
  }

  @Test
  void chunkedAttentionEqualsFullAttentionInValuesAndGradients() {
    try (Qwen3Model model = model(); NDManager work = model.newWorkManager()) {
      int t = 10;  // not a multiple of the chunk: the last block is short
      work.getEngine().setRandomSeed(5);
      NDArray q0 = work.randomNormal(new Shape(2, 4, t, 8));
      NDArray k0 = work.randomNormal(new Shape(2, 2, t, 8));
      NDArray v0 = work.randomNormal(new Shape(2, 2, t, 8));
      NDArray upstream = work.randomNormal(new Shape(2, t, 32));

      NDArray[] full = leaves(q0, k0, v0);
      NDArray fullOut;
      try (Autograd.Scope on = Autograd.on()) {
        fullOut = model.attention(full[0], full[1], full[2],
            new Qwen3Model.CausalSource(work, t).mask());
      }
      Autograd.backward(fullOut, upstream);

      ChunkedAttention chunked = new ChunkedAttention(model, 3);
      NDArray[] parts = leaves(q0, k0, v0);
      NDArray chunkedOut;
      try (Autograd.Scope off = Autograd.off()) {
        chunkedOut = chunked.forward(parts[0], parts[1], parts[2]);
      }
      chunked.backward(parts[0], parts[1], parts[2], upstream);

      assertClose(fullOut, chunkedOut, 1e-5, "attention output");
      for (int i = 0; i < 3; i++) {
        assertClose(full[i].getGradient(), parts[i].getGradient(), 1e-5, "gradient " + "qkv".charAt(i));
      }
    }
  }

  @Test
  void frozenScoresEqualTheOneGraphScores() {
    List<ResponseSample> batch = batch();
    try (Qwen3Model model = model(); NDManager work = model.newWorkManager()) {
      ResponseLogProbs graph = new PolicyForward(model, TEMPERATURE).score(work, batch);
      ResponseLogProbs frozen = new PolicyForward(model, TEMPERATURE, 4).scoreFrozen(work, batch);
      assertClose(graph.logProbs().mul(graph.mask()), frozen.logProbs().mul(frozen.mask()), 1e-5,
          "log-probs");
      assertClose(graph.entropy().mul(graph.mask()), frozen.entropy().mul(frozen.mask()), 1e-5,
          "entropy");
    }
  }

  @Test
  void recomputedGradientsEqualTheOneGraphGradientsForEveryWeight() {
    List<ResponseSample> batch = batch();
    // Any loss that weights tokens differently exercises every path; padding contributes 0.
    PolicyForward.TokenLoss loss = (lp, mask) -> lp.mul(mask)
        .mul(lp.getManager().arange(1f, 1f + lp.size()).reshape(lp.getShape()).div(10f))
        .sum().neg();
    Map<String, float[]> oneGraph = new HashMap<>();
    double oneGraphLoss;
    try (Qwen3Model model = model()) {
      model.setTrainable(true);
      try (NDManager work = model.newWorkManager();
          GradientCollector gc = Engine.getInstance().newGradientCollector()) {
        ResponseLogProbs out = new PolicyForward(model, TEMPERATURE).score(work, batch);
        NDArray value = loss.apply(out.logProbs(), out.mask());
        oneGraphLoss = value.getFloat();
        gc.backward(value);
        model.parameters().forEach((n, p) -> oneGraph.put(n, p.getGradient().toFloatArray()));
      }
    }
    try (Qwen3Model model = model()) {
      model.setTrainable(true);
      try (NDManager work = model.newWorkManager()) {
        PolicyForward.Trained trained = new PolicyForward(model, TEMPERATURE, 4)
            .train(work, batch, loss);
        assertEquals(oneGraphLoss, trained.loss(), 1e-5);
        double largest = 0;
        for (var e : model.parameters().entrySet()) {
          float[] expected = oneGraph.get(e.getKey());
          float[] actual = e.getValue().getGradient().toFloatArray();
          for (int i = 0; i < expected.length; i++) {
            largest = Math.max(largest, Math.abs(expected[i]));
            assertEquals(expected[i], actual[i], 1e-5, e.getKey() + "[" + i + "]");
          }
        }
        assertTrue(largest > 1e-2, "the gradients should not all be tiny: " + largest);
      }
    }
  }

  /**
   * The forward keeps, per layer, its input and attention output and nothing else: a layer's
   * temporaries (norms, projections, MLP activations) are freed when the layer is done. When
   * they were left in the step's manager, peak memory grew by about 1 MB a token on the 100M
   * config and an 8,192-token learner step ran out of 24 GiB.
   */
  @Test
  void theForwardKeepsOnlyWhatBackwardNeedsPerLayer() {
    int t = 40;
    try (Qwen3Model model = model(); NDManager work = model.newWorkManager()) {
      NDArray ids = work.create(new long[t], new Shape(1, t));
      RecomputingPass pass = new RecomputingPass(model, 16);
      long before = heldFloats(work);
      RecomputingPass.Saved saved = pass.forward(ids, new long[t], true);
      long kept = 0;
      for (int i = 0; i < CONFIG.numLayers(); i++) {
        kept += saved.inputs()[i].size() + saved.attention()[i].size();
      }
      kept += saved.output().size() + saved.cosSin()[0].size() + saved.cosSin()[1].size();
      long held = heldFloats(work) - before;
      assertTrue(held <= kept + t, "the forward holds " + held + " floats, what backward needs is " + kept);
      long frozen = heldFloats(work);
      pass.forward(ids, new long[t], false);
      long scoring = heldFloats(work) - frozen;
      assertTrue(scoring <= 3L * t * CONFIG.hiddenSize(), "scoring holds " + scoring + " floats after the forward");
    }
  }

  /** Elements of every open array in {@code manager} and its sub-managers. */
  private static long heldFloats(NDManager manager) {
    return manager.getManagedArrays().stream().filter(a -> !a.isReleased()).mapToLong(NDArray::size).sum();
  }

  private static List<ResponseSample> batch() {
    // Different prompt and response lengths, so padding and several attention blocks occur.
    return List.of(
        new ResponseSample(new int[] {1, 2, 3, 4, 5, 6, 7}, new int[] {8, 9, 10}),
        new ResponseSample(new int[] {11, 12}, new int[] {13, 14, 15, 16, 17}),
        new ResponseSample(new int[] {20, 21, 22, 23}, new int[] {24}));
  }

  private static NDArray[] leaves(NDArray... xs) {
    NDArray[] out = new NDArray[xs.length];
    for (int i = 0; i < xs.length; i++) {
      out[i] = Autograd.leaf(xs[i]);
    }
    return out;
  }

  private static void assertClose(NDArray expected, NDArray actual, double tol, String what) {
    assertEquals(expected.getShape(), actual.getShape(), what + " shape");
    float[] e = expected.toFloatArray();
    float[] a = actual.toFloatArray();
    for (int i = 0; i < e.length; i++) {
      assertEquals(e[i], a[i], tol, what + "[" + i + "]");
    }
  }
}
