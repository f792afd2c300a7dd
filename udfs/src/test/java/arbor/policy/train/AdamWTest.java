package arbor.policy.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AdamWTest {

  private static final AdamW.Hyper HYPER = new AdamW.Hyper(0.1, 0.01, 0.9, 0.999, 1e-8, 0);

  /** A matrix p (1, 2) and a vector q (1): weight decay applies to p only. */
  private static Map<String, NDArray> params(NDManager nd) {
    Map<String, NDArray> m = new LinkedHashMap<>();
    m.put("p", nd.create(new float[] {1f, -2f}, new Shape(1, 2)));
    m.put("q", nd.create(new float[] {0.5f}));
    m.values().forEach(a -> a.setRequiresGradient(true));
    return m;
  }

  /** Leaves d loss / dp = gp and d loss / dq = gq on the parameters. */
  private static void gradients(Map<String, NDArray> params, float[] gp, float gq) {
    try (Autograd.Scope on = Autograd.on()) {
      NDManager nd = params.get("p").getManager();
      NDArray loss = params.get("p").mul(nd.create(gp, new Shape(1, 2))).sum()
          .add(params.get("q").mul(gq).sum());
      Autograd.backward(loss, nd.ones(loss.getShape()));
    }
  }

  @Test
  void twoStepsMatchTheHandComputedUpdate() {
    try (NDManager nd = NDManager.newBaseManager()) {
      Map<String, NDArray> params = params(nd);
      try (AdamW adam = new AdamW(params, HYPER)) {
        // Step 1, g_p = (0.3, -0.4), g_q = 0.2: m = 0.1 g, v = 0.001 g^2, so mhat = g and
        // vhat = g^2 and the step is lr * sign(g) = 0.1. p decays first by (1 - 0.1*0.01):
        // p = (1, -2) * 0.999 - (0.1, -0.1) = (0.899, -1.898); q (no decay) = 0.5 - 0.1 = 0.4.
        gradients(params, new float[] {0.3f, -0.4f}, 0.2f);
        adam.step();
        assertArrayEquals(new float[] {0.899f, -1.898f}, params.get("p").toFloatArray(), 1e-6f);
        assertArrayEquals(new float[] {0.4f}, params.get("q").toFloatArray(), 1e-6f);
        // Step 2, g_p0 = 0.1: m = 0.9*0.03 + 0.1*0.1 = 0.037, mhat = 0.037/0.19 = 0.1947368;
        // v = 0.999*0.00009 + 0.001*0.01 = 0.00009991, vhat = v/0.001999 = 0.0499800,
        // sqrt = 0.2235620; p0 = 0.899*0.999 - 0.1*0.1947368/0.2235621 = 0.8109946.
        // g_p1 = -0.4 again: the step is exactly lr: p1 = -1.898*0.999 + 0.1 = -1.796102.
        gradients(params, new float[] {0.1f, -0.4f}, 0.2f);
        adam.step();
        assertArrayEquals(new float[] {0.8109946f, -1.796102f}, params.get("p").toFloatArray(),
            2e-6f);
        assertEquals(2, adam.stepCount());
      }
    }
  }

  @Test
  void aStepLeavesNoTemporariesBehind() {
    try (NDManager nd = NDManager.newBaseManager()) {
      Map<String, NDArray> params = params(nd);
      try (AdamW adam = new AdamW(params, HYPER)) {
        int moments = adam.heldArrays();
        for (int i = 0; i < 3; i++) {
          gradients(params, new float[] {0.3f, -0.4f}, 0.2f);
          adam.step();
        }
        assertEquals(moments, adam.heldArrays());
      }
    }
  }

  @Test
  void gradientsAreZeroedAfterAStep() {
    try (NDManager nd = NDManager.newBaseManager()) {
      Map<String, NDArray> params = params(nd);
      try (AdamW adam = new AdamW(params, HYPER)) {
        gradients(params, new float[] {0.3f, -0.4f}, 0.2f);
        adam.step();
        assertArrayEquals(new float[] {0f, 0f}, params.get("p").getGradient().toFloatArray());
      }
    }
  }

  @Test
  void clippingScalesTheGlobalNormDownToTheLimit() {
    try (NDManager nd = NDManager.newBaseManager()) {
      Map<String, NDArray> params = params(nd);
      AdamW.Hyper clipped = new AdamW.Hyper(0.1, 0.01, 0.9, 0.999, 1e-8, 1.0);
      try (AdamW adam = new AdamW(params, clipped)) {
        // Global norm of (3, -4) and 0: 5; clipped to 1 the gradient is (0.6, -0.8), 0, so
        // the first moment after one step is 0.1 * that = (0.06, -0.08).
        gradients(params, new float[] {3f, -4f}, 0f);
        AdamW.StepInfo info = adam.step();
        assertEquals(5.0, info.gradNorm(), 1e-6);
        assertEquals(0.2, info.clipScale(), 1e-6);
        assertArrayEquals(new float[] {0.06f, -0.08f},
            adam.exportState().firstMoments().get("p"), 1e-7f);
      }
    }
  }

  @Test
  void anImportedStateContinuesExactlyAsTheOriginal() {
    try (NDManager nd = NDManager.newBaseManager()) {
      Map<String, NDArray> a = params(nd);
      Map<String, NDArray> b = params(nd);
      try (AdamW first = new AdamW(a, HYPER); AdamW second = new AdamW(b, HYPER)) {
        gradients(a, new float[] {0.3f, -0.4f}, 0.2f);
        first.step();
        gradients(b, new float[] {0.3f, -0.4f}, 0.2f);
        second.step();
        // Disturb the second optimizer's state, then restore it from the first's export.
        gradients(b, new float[] {5f, 5f}, 5f);
        second.step();
        for (var e : a.entrySet()) {
          b.get(e.getKey()).set(e.getValue().toFloatArray());
        }
        second.importState(first.exportState());
        gradients(a, new float[] {0.1f, 0.7f}, -0.3f);
        gradients(b, new float[] {0.1f, 0.7f}, -0.3f);
        first.step();
        second.step();
        assertArrayEquals(a.get("p").toFloatArray(), b.get("p").toFloatArray());
        assertArrayEquals(a.get("q").toFloatArray(), b.get("q").toFloatArray());
        assertEquals(first.stepCount(), second.stepCount());
      }
    }
  }

  @Test
  void aStateForOtherParametersIsRefusedWithTheirNames() {
    try (NDManager nd = NDManager.newBaseManager()) {
      try (AdamW adam = new AdamW(params(nd), HYPER)) {
        var bad = new AdamWState(1, Map.of("p", new float[2], "r", new float[1]),
            Map.of("p", new float[2], "r", new float[1]));
        var e = assertThrows(IllegalArgumentException.class, () -> adam.importState(bad));
        assertTrue(e.getMessage().contains("[r]") && e.getMessage().contains("[q]"),
            e.getMessage());
      }
    }
  }
}
