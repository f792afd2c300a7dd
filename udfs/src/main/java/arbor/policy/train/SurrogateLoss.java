package arbor.policy.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import arbor.conf.LearnerSettings;
import arbor.policy.kernels.TorchScalar;

/**
 * The per-token PPO/GRPO terms of one micro-batch, summed with the reduction's coefficients:
 * {@code loss = -sum_t c_t * min(rho_t A, clip(rho_t, 1-eps, 1+eps) A) + beta * sum_t k_t * k3_t}
 * with {@code rho = exp(cur - old)} and {@code k3 = exp(ref - cur) - (ref - cur) - 1}.
 *
 * <p>All per-token arrays are (B, R) with padding where {@code mask} is 0; per-sample arrays
 * (advantage, coefficients) are (B, 1). Padding is masked before the exponentials, so a
 * padded position can never produce inf * 0.
 *
 * @param clipEps PPO's epsilon
 * @param beta weight of the KL term
 */
public record SurrogateLoss(double clipEps, double beta) {

  public static SurrogateLoss of(LearnerSettings l) {
    return new SurrogateLoss(l.epsClip(), l.betaKl());
  }

  public SurrogateLoss {
    if (!(clipEps > 0 && clipEps < 1) || !(beta >= 0)) {
      throw new IllegalArgumentException("need 0 < eps_clip < 1 and beta_kl >= 0, got "
          + clipEps + ", " + beta);
    }
  }

  /**
   * The terms: {@code loss} (scalar, differentiable in cur), and for the step's metrics the
   * scalars {@code policy} (-sum c l), {@code kl} (sum k k3), {@code clipped} (tokens whose
   * clipped branch is the smaller, so they pass no gradient) and {@code ratioSum}.
   */
  public record Terms(NDArray loss, NDArray policy, NDArray kl, NDArray clipped,
      NDArray ratioSum) {}

  public Terms apply(NDArray cur, NDArray old, NDArray ref, NDArray mask, NDArray advantage,
      NDArray policyCoef, NDArray klCoef) {
    // Selected, not multiplied: a padding position holding -inf or NaN (a log-probability of a
    // token the model cannot produce) times 0 is NaN, and NaN reaches every gradient.
    NDArray valid = mask.gt(0);
    NDArray zero = cur.zerosLike();
    NDArray logRatio = NDArrays.where(valid, cur.sub(old), zero);
    NDArray ratio = logRatio.exp();                                          // (B, R)
    NDArray unclipped = ratio.mul(advantage);
    NDArray clipped = ratio.clip((float) (1 - clipEps), (float) (1 + clipEps)).mul(advantage);
    NDArray surrogate = unclipped.minimum(clipped);                          // (B, R)
    NDArray policy = surrogate.mul(policyCoef).mul(mask).sum().neg();
    NDArray delta = NDArrays.where(valid, ref.sub(cur), zero);
    NDArray k3 = delta.exp().sub(delta).sub(1);                              // 0 at padding
    NDArray kl = k3.mul(klCoef).sum();
    NDArray loss = policy.add(kl.mul(TorchScalar.like(kl, beta)));
    NDArray binding = clipped.lt(unclipped).toType(cur.getDataType(), false).mul(mask).sum();
    return new Terms(loss, policy, kl, binding, ratio.mul(mask).sum());
  }
}
