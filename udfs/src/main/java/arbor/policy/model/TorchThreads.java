package arbor.policy.model;

import ai.djl.engine.Engine;
import ai.djl.pytorch.jni.JniUtils;

/**
 * libtorch's intra-op thread count, which is global to the JVM. Give it the cores one engine
 * really has: on cores shared with other busy processes (a Spark executor's sandbox workers,
 * or other builds), every parallel op waits at a barrier for a descheduled worker, and one
 * thread measured 3-6x faster than two for prefill and training on this project's shared
 * 2-core machine.
 */
public final class TorchThreads {

  private TorchThreads() {}

  /** Sets the thread count (loading libtorch first if needed); returns what is now in effect. */
  public static int set(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("torch threads must be >= 1, got " + threads);
    }
    Engine.getInstance();  // libtorch's native calls fail before the engine has loaded it
    JniUtils.setNumThreads(threads);
    return JniUtils.getNumThreads();
  }

  /** The thread count in effect. */
  public static int get() {
    Engine.getInstance();
    return JniUtils.getNumThreads();
  }
}
