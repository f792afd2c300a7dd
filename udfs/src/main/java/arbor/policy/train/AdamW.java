package arbor.policy.train;

import arbor.conf.SftSettings;
import arbor.conf.LearnerSettings;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * AdamW with decoupled weight decay and global gradient-norm clipping, written here rather than
 * taken from DJL so its state ({@link AdamWState}) can be exported and imported exactly.
 *
 * <p>One {@link #step} reads the gradients accumulated on the parameters, clips them by their
 * global L2 norm, updates the weights in place and zeroes the gradients. The update is
 * PyTorch's AdamW: {@code p <- p - lr*wd*p}, then {@code p <- p - lr * mhat / (sqrt(vhat) + eps)}
 * with bias-corrected moments. Weight decay applies to matrices only: decaying norm gains and
 * biases towards 0 pulls them away from their meaningful value 1 or 0 for no regularising gain.
 *
 * <p>The moments live in a manager this optimizer owns, on the parameters' device; close the
 * optimizer to free them.
 */
public final class AdamW implements AutoCloseable {

  /**
   * @param lr learning rate
   * @param weightDecay decoupled weight decay per unit of learning rate (matrices only)
   * @param beta1 decay of the first moment
   * @param beta2 decay of the second moment
   * @param eps added to sqrt(vhat)
   * @param maxGradNorm global L2 norm the gradients are clipped to; 0 or less turns clipping off
   */
  public record Hyper(double lr, double weightDecay, double beta1, double beta2, double eps,
      double maxGradNorm) {

    public static Hyper of(LearnerSettings l) {
      return new Hyper(l.lr(), l.weightDecay(), l.beta1(), l.beta2(), l.eps(), l.maxGradNorm());
    }

    /** SFT's optimizer: the learner's hyper-parameters with SFT's learning rate. */
    public static Hyper sft(SftSettings sft, LearnerSettings l) {
      return new Hyper(sft.lr(), l.weightDecay(), l.beta1(), l.beta2(), l.eps(), l.maxGradNorm());
    }

    public Hyper {
      if (!(lr >= 0) || !(weightDecay >= 0) || !(eps > 0)) {
        throw new IllegalArgumentException("AdamW needs lr >= 0, weight_decay >= 0, eps > 0;"
            + " got lr=" + lr + " weight_decay=" + weightDecay + " eps=" + eps);
      }
      if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1)) {
        throw new IllegalArgumentException("AdamW betas must be in [0, 1), got " + beta1 + ", "
            + beta2);
      }
    }
  }

  /** What one step did: the gradients' global norm before clipping and the factor applied. */
  public record StepInfo(double gradNorm, double clipScale) {}

  private final Map<String, NDArray> params;
  private final Hyper hyper;
  private final NDManager manager;
  private final Map<String, NDArray> m = new LinkedHashMap<>();
  private final Map<String, NDArray> v = new LinkedHashMap<>();
  private long step;

  public AdamW(Map<String, NDArray> params, Hyper hyper) {
    this.params = params;
    this.hyper = hyper;
    NDArray any = params.values().iterator().next();
    this.manager = any.getManager().newSubManager();
    for (var e : params.entrySet()) {
      m.put(e.getKey(), manager.zeros(e.getValue().getShape()));
      v.put(e.getKey(), manager.zeros(e.getValue().getShape()));
    }
  }

  public Hyper hyper() {
    return hyper;
  }

  /** Optimizer steps taken so far. */
  public long stepCount() {
    return step;
  }

  /**
   * Clips the accumulated gradients, updates every parameter that has one, and zeroes them.
   * Runs with autograd off, so the in-place updates are not recorded.
   */
  public StepInfo step() {
    return step(hyper.lr());
  }

  /** {@link #step()} at learning rate {@code lr} instead of the constant one (a schedule's). */
  public StepInfo step(double lr) {
    try (Autograd.Scope off = Autograd.off(); NDManager scratch = manager.newSubManager()) {
      Map<String, NDArray> grads = new LinkedHashMap<>();
      double sumSquares = 0;
      for (var e : params.entrySet()) {
        NDArray p = e.getValue();
        if (p.hasGradient()) {
          NDArray g = p.getGradient();
          g.attach(scratch);
          grads.put(e.getKey(), g);
          try (NDArray sq = g.square(); NDArray total = sq.sum()) {
            sumSquares += total.getFloat();
          }
        }
      }
      double norm = Math.sqrt(sumSquares);
      if (!Double.isFinite(norm)) {
        throw new IllegalStateException("gradient norm is " + norm + " before step " + (step + 1)
            + "; the loss or a log-probability overflowed (check the samples' logprobs and the"
            + " learning rate)");
      }
      double scale = hyper.maxGradNorm() > 0 && norm > hyper.maxGradNorm()
          ? hyper.maxGradNorm() / (norm + 1e-6) : 1.0;
      step++;
      double c1 = 1 - Math.pow(hyper.beta1(), step);
      double c2 = 1 - Math.pow(hyper.beta2(), step);
      for (var e : grads.entrySet()) {
        // One scope per parameter: the update's temporaries (a few copies of the largest
        // matrix) are freed before the next. Results of ops on m and v would land in this
        // optimizer's own manager and live until close, so each is moved into the scope.
        try (NDManager tmp = scratch.newSubManager()) {
          String name = e.getKey();
          NDArray p = params.get(name);
          NDArray g = in(tmp, e.getValue()).mul(scale);
          NDArray mi = m.get(name);
          NDArray vi = v.get(name);
          mi.muli(hyper.beta1()).addi(g.mul(1 - hyper.beta1()));
          vi.muli(hyper.beta2()).addi(g.square().muli(1 - hyper.beta2()));
          if (p.getShape().dimension() >= 2 && hyper.weightDecay() > 0) {
            p.muli(1 - lr * hyper.weightDecay());
          }
          NDArray denom = in(tmp, vi.div(c2)).sqrt().addi(hyper.eps());
          p.subi(in(tmp, mi.div(c1)).divi(denom).muli(lr));
          Autograd.zeroGrad(p);
        }
      }
      return new StepInfo(norm, scale);
    }
  }

  /** Arrays this optimizer's manager holds (its moments; anything more is a leak). */
  int heldArrays() {
    return manager.getManagedArrays().size();
  }

  private static NDArray in(NDManager scope, NDArray a) {
    a.attach(scope);
    return a;
  }

  /** Zeroes the accumulated gradients without stepping (a batch abandoned half-way). */
  public void zeroGradients() {
    params.values().stream().filter(NDArray::hasGradient).forEach(Autograd::zeroGrad);
  }

  /** A copy of the state on the host, for a checkpoint. */
  public AdamWState exportState() {
    Map<String, float[]> first = new LinkedHashMap<>();
    Map<String, float[]> second = new LinkedHashMap<>();
    for (String name : params.keySet()) {
      first.put(name, m.get(name).toFloatArray());
      second.put(name, v.get(name).toFloatArray());
    }
    return new AdamWState(step, first, second);
  }

  /**
   * Replaces the state with a checkpoint's. Every parameter must be present with its exact
   * element count: a partial state would silently restart some moments from zero.
   */
  public void importState(AdamWState state) {
    if (!state.firstMoments().keySet().equals(params.keySet())) {
      throw new IllegalArgumentException("AdamW state is for parameters "
          + difference(state.firstMoments().keySet(), params.keySet())
          + "; it does not belong to this model");
    }
    for (var e : params.entrySet()) {
      String name = e.getKey();
      long size = e.getValue().size();
      float[] first = state.firstMoments().get(name);
      float[] second = state.secondMoments().get(name);
      if (first.length != size || second.length != size) {
        throw new IllegalArgumentException("AdamW state for '" + name + "' has " + first.length
            + "/" + second.length + " values but the parameter has " + size + " (shape "
            + e.getValue().getShape() + ")");
      }
      m.get(name).set(first);
      v.get(name).set(second);
    }
    step = state.step();
  }

  /** The first few names on each side only, for an error message. */
  private static String difference(Set<String> state, Set<String> model) {
    return "that differ: only in the state "
        + state.stream().filter(n -> !model.contains(n)).limit(3).toList()
        + ", only in the model " + model.stream().filter(n -> !state.contains(n)).limit(3).toList();
  }

  @Override
  public void close() {
    manager.close();
  }
}
