package arbor.policy.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tree objective on a micro example worked by hand. One query, G = 2 roots:
 *
 * <pre>
 *   root a (A = +1, w = 1, |y| = 2)     children k = 2: a1 (w = 1/2, |y| = 1)
 *                                                       a2 (w = 1/2, |y| = 3, two turns: 1 + 2)
 *   root b (A = -1, w = 1, |y| = 1)     children k = 1: b1 (w = 1,   |y| = 2)
 * </pre>
 *
 * Log-probs (cur / old), rho = exp(cur - old), eps = 0.2:
 * a: (-1/-1, -2/-2.1): rho 1, e^0.1 = 1.105171, both unclipped, l = 1, 1.105171.
 * a1: (-0.5/-0.9): rho e^0.4 = 1.491825 > 1.2 with A > 0: clipped, l = 1.2, no gradient.
 * a2: three tokens at rho 1: l = 1 each.
 * b: (-0.2/-0.1): rho e^-0.1 = 0.904837, inside the clip: l = -0.904837.
 * b1: (-3/-2.5, -1/-1): rho e^-0.5 = 0.606531 < 0.8 with A < 0: clipped, l = -0.8; then l = -1.
 *
 * Tree coefficients c = w / (|y| Q G) with Q = 1, G = 2: a 1/4, a1 1/4, a2 1/12, b 1/2, b1 1/4.
 * J = 1/4 (1 + 1.105171) + 1/4 (1.2) + 1/12 (3) + 1/2 (-0.904837) + 1/4 (-1.8) = 0.173874
 * (= (1/2) [L_subtree(a) + L_subtree(b)] = (1/2) [(1.052585 + (1.2 + 1)/2) + (-0.904837 - 0.9)]).
 *
 * KL: ref differs from cur at two tokens: a's first (ref -1.5, d = -0.5, k3 = e^-0.5 + 0.5 - 1
 * = 0.106531) and b1's second (ref -0.8, d = 0.2, k3 = e^0.2 - 0.2 - 1 = 0.021403). The token
 * coefficients sum to C = 2 (each tree's total weight is 2), so KL = (1/4 * 0.106531 + 1/4 *
 * 0.021403) / 2 = 0.0159917, and loss = -J + 0.01 KL = -0.1737141.
 *
 * d loss / d cur = -c A rho (unclipped tokens) + beta (c / C) (1 - e^d):
 * a: -0.25 + 0.01 * 0.125 * 0.393469 = -0.2495082, -0.25 * 1.105171 = -0.2762927;
 * a1: 0; a2: -1/12 each; b: +0.5 * 0.904837 = 0.4524187; b1: 0, 0.25 + 0.01 * 0.125 *
 * (1 - e^0.2) = 0.2497232.
 */
class SurrogateLossTest {

  private record Sample(String node, double advantage, double weight, long genTokens,
      float[] cur, float[] old, float[] ref) {}

  private static final List<Sample> EXAMPLE = List.of(
      new Sample("a", 1, 1, 2, f(-1, -2), f(-1, -2.1f), f(-1.5f, -2)),
      new Sample("a1", 1, 0.5, 1, f(-0.5f), f(-0.9f), f(-0.5f)),
      new Sample("a2 turn 0", 1, 0.5, 3, f(-1), f(-1), f(-1)),
      new Sample("a2 turn 1", 1, 0.5, 3, f(-1, -1), f(-1, -1), f(-1, -1)),
      new Sample("b", -1, 1, 1, f(-0.2f), f(-0.1f), f(-0.2f)),
      new Sample("b1", -1, 1, 2, f(-3, -1), f(-2.5f, -1), f(-3, -0.8f)));

  /** Per query totals as the learner's aggregation computes them: 2 roots, 9 tokens. */
  private static final BatchShape SHAPE = BatchShape.of(List.of(
      new BatchShape.QueryTotals("q", 2, 9,
          1 * 2 / 2.0 + 0.5 * 1 / 1.0 + 0.5 * 1 / 3.0 + 0.5 * 2 / 3.0 + 1 * 1 / 1.0 + 1 * 2 / 2.0)));

  private static final SurrogateLoss LOSS = new SurrogateLoss(0.2, 0.01);

  @Test
  void theTreeLossAndItsGradientMatchTheHandComputedExample() {
    assertEquals(2.0, SHAPE.treeMass(), 1e-12);
    try (NDManager nd = NDManager.newBaseManager()) {
      Batch b = batch(nd, EXAMPLE, Reduction.TREE);
      SurrogateLoss.Terms terms;
      try (Autograd.Scope on = Autograd.on()) {
        terms = LOSS.apply(b.cur, b.old, b.ref, b.mask, b.adv, b.pc, b.kc);
      }
      Autograd.backward(terms.loss(), nd.ones(terms.loss().getShape()));
      assertEquals(-0.1737141, terms.loss().getFloat(), 1e-6);
      assertEquals(-0.1738740, terms.policy().getFloat(), 1e-6);
      assertEquals(0.0159917, terms.kl().getFloat(), 1e-6);
      assertEquals(2, terms.clipped().getFloat());  // a1 and b1's first token
      float[] grad = b.cur.getGradient().toFloatArray();
      // Rows as in EXAMPLE, two columns each (R = 2), padding 0.
      assertArrayEquals(new float[] {
          -0.2495082f, -0.2762927f,
          0, 0,
          -1 / 12f, 0,
          -1 / 12f, -1 / 12f,
          0.4524187f, 0,
          0, 0.2497232f}, grad, 1e-6f);
    }
  }

  @Test
  void microBatchLossesAddUpToTheBatchLoss() {
    try (NDManager nd = NDManager.newBaseManager()) {
      float whole = value(nd, EXAMPLE, Reduction.TREE);
      float parts = value(nd, EXAMPLE.subList(0, 3), Reduction.TREE)
          + value(nd, EXAMPLE.subList(3, 6), Reduction.TREE);
      assertEquals(whole, parts, 1e-6);
    }
  }

  @Test
  void tokenMeanWeighsEveryTokenAlike() {
    // sum of w * l over the 9 tokens / 9: (1 + 1.105171 + 0.5*1.2 + 0.5*3 - 0.904837 - 1.8) / 9
    // = 1.500334 / 9 = 0.1667037; KL the plain mean: (0.106531 + 0.021403) / 9 = 0.0142149.
    try (NDManager nd = NDManager.newBaseManager()) {
      Batch b = batch(nd, EXAMPLE, Reduction.TOKEN_MEAN);
      SurrogateLoss.Terms terms = LOSS.apply(b.cur, b.old, b.ref, b.mask, b.adv, b.pc, b.kc);
      assertEquals(-0.1667037, terms.policy().getFloat(), 1e-6);
      assertEquals(0.0142149, terms.kl().getFloat(), 1e-6);
    }
  }

  private static float value(NDManager nd, List<Sample> samples, Reduction r) {
    Batch b = batch(nd, samples, r);
    return LOSS.apply(b.cur, b.old, b.ref, b.mask, b.adv, b.pc, b.kc).loss().getFloat();
  }

  private record Batch(NDArray cur, NDArray old, NDArray ref, NDArray mask, NDArray adv,
      NDArray pc, NDArray kc) {}

  private static Batch batch(NDManager nd, List<Sample> samples, Reduction r) {
    int n = samples.size();
    int width = 2;
    float[] cur = new float[n * width];
    float[] old = new float[n * width];
    float[] ref = new float[n * width];
    float[] mask = new float[n * width];
    float[] adv = new float[n];
    float[] pc = new float[n];
    float[] kc = new float[n];
    for (int i = 0; i < n; i++) {
      Sample s = samples.get(i);
      for (int j = 0; j < s.cur.length; j++) {
        cur[i * width + j] = s.cur[j];
        old[i * width + j] = s.old[j];
        ref[i * width + j] = s.ref[j];
        mask[i * width + j] = 1;
      }
      // Padding holds values whose exponentials would overflow if they were not masked.
      for (int j = s.cur.length; j < width; j++) {
        cur[i * width + j] = 100;
        old[i * width + j] = -100;
        ref[i * width + j] = 100;
      }
      Reduction.Coefficients c = r.coefficients(SHAPE, "q", s.weight, s.genTokens);
      adv[i] = (float) s.advantage;
      pc[i] = (float) c.policy();
      kc[i] = (float) c.kl();
    }
    Shape tokens = new Shape(n, width);
    Shape rows = new Shape(n, 1);
    NDArray c = nd.create(cur, tokens);
    c.setRequiresGradient(true);
    return new Batch(c, nd.create(old, tokens), nd.create(ref, tokens), nd.create(mask, tokens),
        nd.create(adv, rows), nd.create(pc, rows), nd.create(kc, rows));
  }

  @Test
  void paddingThatHoldsInfinitiesOrNaNLeavesTheLossAndGradientFinite() {
    try (NDManager nd = NDManager.newBaseManager()) {
      Batch b = batch(nd, EXAMPLE, Reduction.TREE);
      float[] cur = b.cur.toFloatArray();
      float[] old = b.old.toFloatArray();
      float[] ref = b.ref.toFloatArray();
      float[] mask = b.mask.toFloatArray();
      for (int i = 0; i < mask.length; i++) {
        if (mask[i] == 0) {
          cur[i] = Float.NEGATIVE_INFINITY;
          old[i] = Float.NaN;
          ref[i] = Float.POSITIVE_INFINITY;
        }
      }
      NDArray c = nd.create(cur, b.cur.getShape());
      c.setRequiresGradient(true);
      SurrogateLoss.Terms terms;
      try (Autograd.Scope on = Autograd.on()) {
        terms = LOSS.apply(c, nd.create(old, b.old.getShape()), nd.create(ref, b.ref.getShape()), b.mask, b.adv, b.pc, b.kc);
      }
      Autograd.backward(terms.loss(), nd.ones(terms.loss().getShape()));
      // The same numbers as the hand-computed example: padding takes no part.
      assertEquals(-0.1737141, terms.loss().getFloat(), 1e-6);
      for (float g : c.getGradient().toFloatArray()) {
        assertTrue(Float.isFinite(g), "a gradient is " + g);
      }
    }
  }

  private static float[] f(float... v) {
    return v;
  }
}
