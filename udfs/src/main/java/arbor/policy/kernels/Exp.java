package arbor.policy.kernels;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The exponential of the engine's Java kernels (attention's softmax, the host sampler, SwiGLU's
 * sigmoid), made of IEEE operations only, so the interpreter, C1 and C2, one lane or sixteen,
 * give the same bits: {@link Math#exp} may differ between them, which would make a token's
 * log-probability depend on which code ran it.
 */
public final class Exp {

  private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;

  private Exp() {}

  // exp(x) for x in [-87, 88]: 2^n * e^r with n = round(x / ln 2), r = x - n ln 2 (ln 2 in two
  // parts, so r is nearly exact), e^r by its Taylor series to degree 7 (|r| <= 0.35: error ~1e-8).
  private static final float MIN_X = -87f;
  /** e^88 is 1.65e38, below the largest float (2^127 still has an exponent field). */
  private static final float MAX_X = 88f;
  private static final float LOG2E = 1.44269504f;
  private static final float LN2_HI = 0.693359375f;
  private static final float LN2_LO = -2.12194440e-4f;
  /** 1.5 * 2^23: adding and subtracting it rounds a float of magnitude < 2^22 to an integer. */
  private static final float ROUND = 12582912f;
  private static final float C7 = 1f / 5040;
  private static final float C6 = 1f / 720;
  private static final float C5 = 1f / 120;
  private static final float C4 = 1f / 24;
  private static final float C3 = 1f / 6;
  private static final float C2 = 0.5f;

  /**
   * e^x for x in [-87, 88], as if -87 below (under 1e-37, where a softmax's sum is at least 1)
   * and as if 88 above (a sigmoid's denominator then swamps its numerator); the same operations
   * as {@link #of(FloatVector)}, so both give the same bits.
   */
  public static float of(float x) {
    x = Math.min(Math.max(x, MIN_X), MAX_X);
    float n = Math.fma(x, LOG2E, ROUND) - ROUND;
    float r = Math.fma(n, -LN2_HI, x);
    r = Math.fma(n, -LN2_LO, r);
    float p = Math.fma(C7, r, C6);
    p = Math.fma(p, r, C5);
    p = Math.fma(p, r, C4);
    p = Math.fma(p, r, C3);
    p = Math.fma(p, r, C2);
    p = Math.fma(p, r, 1f);
    p = Math.fma(p, r, 1f);
    return p * Float.intBitsToFloat(((int) n + 127) << 23);
  }

  public static FloatVector of(FloatVector x) {
    x = x.max(MIN_X).min(MAX_X);
    FloatVector n = x.fma(LOG2E, ROUND).sub(ROUND);
    FloatVector r = n.fma(FloatVector.broadcast(S, -LN2_HI), x);
    r = n.fma(FloatVector.broadcast(S, -LN2_LO), r);
    FloatVector p = r.fma(C7, C6);
    p = p.fma(r, FloatVector.broadcast(S, C5));
    p = p.fma(r, FloatVector.broadcast(S, C4));
    p = p.fma(r, FloatVector.broadcast(S, C3));
    p = p.fma(r, FloatVector.broadcast(S, C2));
    p = p.fma(r, FloatVector.broadcast(S, 1f));
    p = p.fma(r, FloatVector.broadcast(S, 1f));
    IntVector bits = ((IntVector) n.convert(VectorOperators.F2I, 0)).add(127)
        .lanewise(VectorOperators.LSHL, 23);
    return p.mul(bits.reinterpretAsFloats());
  }
}
