package arbor.policy.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import arbor.conf.LearnerSettings;
import arbor.policy.files.HostTensor;
import arbor.policy.model.Qwen3Model;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One optimizer step per batch of samples, Spark-free: streams the samples (longest first)
 * into micro-batches by {@link MicroBatches.TokenCost}, scores the reference policy, runs the
 * memory-linear forward and backward of the clipped surrogate with k3 KL, accumulates the
 * gradients across micro-batches, then takes one {@link AdamW} step.
 *
 * <p>Holds one micro-batch at a time. The policy must be trainable ({@code setTrainable}); the
 * reference, if any, is a frozen model of the same config. This class owns the optimizer, not
 * the models.
 */
public final class PolicyUpdate implements AutoCloseable {

  private final Qwen3Model policy;
  private final Qwen3Model reference;
  private final PolicyForward forward;
  private final PolicyForward referenceForward;
  private final SurrogateLoss objective;
  private final Reduction reduction;
  private final double budget;
  private final MicroBatches.TokenCost cost;
  private final AdamW optimizer;

  /**
   * @param reference the frozen policy the run started from, or null when beta_kl is 0
   * @param temperature the sampler's: log-probabilities are under softmax(logits / T)
   */
  public PolicyUpdate(Qwen3Model policy, Qwen3Model reference, LearnerSettings settings,
      double temperature) {
    if (reference == null && settings.betaKl() > 0) {
      throw new IllegalArgumentException("learner.beta_kl is " + settings.betaKl()
          + " but no reference model was given; pass frozenCopy(policy) or set beta_kl = 0");
    }
    if (reference != null && !reference.config().equals(policy.config())) {
      throw new IllegalArgumentException("the reference model's config differs from the"
          + " policy's: " + reference.config() + " vs " + policy.config());
    }
    this.policy = policy;
    this.reference = reference;
    this.forward = new PolicyForward(policy, temperature, settings.attentionChunk());
    this.referenceForward = reference == null ? null
        : new PolicyForward(reference, temperature, settings.attentionChunk());
    this.objective = SurrogateLoss.of(settings);
    this.reduction = Reduction.parse(settings.reduction());
    this.budget = settings.microBatchTokens();
    this.cost = MicroBatches.TokenCost.of(policy.config());
    this.optimizer = new AdamW(policy.parameters(), AdamW.Hyper.of(settings));
  }

  /**
   * A second instance with the same weights, never trained: the KL's reference. It costs the
   * weights' memory once more (a shared-weights alternative would need the policy's updates
   * kept as deltas, which AdamW's in-place update does not give for free).
   */
  public static Qwen3Model frozenCopy(Qwen3Model model) {
    Map<String, HostTensor> weights = new LinkedHashMap<>();
    for (HostTensor t : model.toHostTensors()) {
      weights.put(t.name(), t);
    }
    return Qwen3Model.create(model.config(), weights, model.device());
  }

  public Qwen3Model policy() {
    return policy;
  }

  public AdamW optimizer() {
    return optimizer;
  }

  /**
   * One step over every sample of the batch. {@code samples} should come longest first (any
   * order is correct; longest first wastes the least padding).
   */
  public StepStats step(BatchShape shape, Iterator<TrainSample> samples) {
    long start = System.nanoTime();
    Sums sums = new Sums();
    MicroBatches.Packer<TrainSample> packer = new MicroBatches.Packer<>(budget, cost);
    try {
      while (samples.hasNext()) {
        TrainSample s = samples.next();
        List<TrainSample> full = packer.offer(s, s.length());
        if (full != null) {
          train(full, shape, sums);
        }
      }
      List<TrainSample> last = packer.flush();
      if (!last.isEmpty()) {
        train(last, shape, sums);
      }
      if (sums.tokens != shape.tokens()) {
        throw new IllegalStateException("the batch totals count " + shape.tokens()
            + " response tokens but " + sums.tokens + " were streamed; the samples changed"
            + " between the two passes over them");
      }
    } catch (RuntimeException e) {
      optimizer.zeroGradients();  // a failed step must not leak gradients into the next
      throw e;
    }
    AdamW.StepInfo info = optimizer.step();
    // An engine generating from these weights in this JVM must not reuse KV computed before.
    policy.weightsChanged();
    return new StepStats(sums.loss, sums.policy, sums.kl, sums.clipped / sums.tokens,
        sums.ratio / sums.tokens, sums.entropy / sums.tokens, info.gradNorm(), sums.tokens,
        sums.samples, sums.microBatches, (System.nanoTime() - start) / 1e9);
  }

  private static final class Sums {
    double loss;
    double policy;
    double kl;
    double clipped;
    double ratio;
    double entropy;
    long tokens;
    long samples;
    int microBatches;
  }

  private void train(List<TrainSample> micro, BatchShape shape, Sums sums) {
    List<ResponseSample> rows = micro.stream().map(TrainSample::tokens).toList();
    int b = micro.size();
    int r = micro.stream().mapToInt(s -> s.responseIds().length).max().orElseThrow();
    float[] old = new float[b * r];
    float[] advantage = new float[b];
    float[] policyCoef = new float[b];
    float[] klCoef = new float[b];
    for (int i = 0; i < b; i++) {
      TrainSample s = micro.get(i);
      System.arraycopy(s.logProbs(), 0, old, i * r, s.logProbs().length);
      Reduction.Coefficients c = reduction.coefficients(shape, s.queryId(), s.weight(),
          s.nodeGenTokens());
      advantage[i] = (float) s.advantage();
      policyCoef[i] = (float) c.policy();
      klCoef[i] = (float) c.kl();
      sums.tokens += s.responseIds().length;
    }
    try (NDManager work = policy.newWorkManager()) {
      Shape perRow = new Shape(b, 1);
      NDArray oldLp = work.create(old, new Shape(b, r));
      NDArray adv = work.create(advantage, perRow);
      NDArray pc = work.create(policyCoef, perRow);
      NDArray kc = work.create(klCoef, perRow);
      NDArray refLp = referenceForward == null ? null
          : referenceForward.scoreFrozen(work, rows).logProbs();
      SurrogateLoss.Terms[] terms = new SurrogateLoss.Terms[1];
      PolicyForward.Trained trained = forward.train(work, rows, (lp, mask) -> {
        NDArray ref = refLp != null ? refLp : lp.stopGradient();
        terms[0] = objective.apply(lp, oldLp, ref, mask, adv, pc, kc);
        return terms[0].loss();
      });
      ResponseLogProbs out = trained.tokens();
      sums.loss += trained.loss();
      sums.policy += terms[0].policy().getFloat();
      sums.kl += terms[0].kl().getFloat();
      sums.clipped += terms[0].clipped().getFloat();
      sums.ratio += terms[0].ratioSum().getFloat();
      sums.entropy += out.entropy().mul(out.mask()).sum().getFloat();
      sums.samples += b;
      sums.microBatches++;
    }
  }

  @Override
  public void close() {
    optimizer.close();
  }
}
