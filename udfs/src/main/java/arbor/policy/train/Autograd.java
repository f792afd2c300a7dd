package arbor.policy.train;

import ai.djl.ndarray.NDArray;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;

/**
 * The few autograd controls the learner needs beyond DJL's {@code GradientCollector}: recording
 * on or off for a scope, backward from a tensor with a given upstream gradient (segment-wise
 * backward for recomputation), and zeroing a gradient. DJL's collector allows one per JVM and
 * only backward from a scalar with gradient 1, which cannot chain recomputed segments.
 *
 * <p>PyTorch's grad mode is per thread, so a scope must be opened and closed on one thread.
 */
final class Autograd {

  private Autograd() {}

  /** Restores the previous grad mode on close. */
  interface Scope extends AutoCloseable {
    @Override
    void close();
  }

  static Scope on() {
    return set(true);
  }

  static Scope off() {
    return set(false);
  }

  private static Scope set(boolean enabled) {
    boolean before = JniUtils.isGradMode();
    JniUtils.setGradMode(enabled);
    return () -> JniUtils.setGradMode(before);
  }

  /**
   * Back-propagates {@code upstream} (the gradient of the loss with respect to {@code output},
   * same shape) into every leaf that {@code output} was computed from; leaf gradients accumulate.
   */
  static void backward(NDArray output, NDArray upstream) {
    JniUtils.backward((PtNDArray) output, (PtNDArray) upstream, false, false);
  }

  /** A detached copy of {@code x} that records gradients: the input of a recomputed segment. */
  static NDArray leaf(NDArray x) {
    NDArray l = x.stopGradient();
    l.setRequiresGradient(true);
    return l;
  }

  static void zeroGrad(NDArray p) {
    JniUtils.zeroGrad((PtNDArray) p);
  }
}
