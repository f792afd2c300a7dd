package arbor.policy.model;

import ai.djl.engine.Engine;
import ai.djl.pytorch.jni.JniUtils;
import java.lang.management.ManagementFactory;

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

  /** {@code configured} threads, or {@link #auto()} when it is 0; returns what is in effect. */
  public static int configure(int configured) {
    return set(configured > 0 ? configured : auto());
  }

  /** The automatic choice for this JVM now: {@link #choose} of its cores and the load. */
  public static int auto() {
    return choose(Runtime.getRuntime().availableProcessors(),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }

  /**
   * The cores nobody else is using: the cores this JVM may run on (its CPU set or container
   * quota) less the machine's load average, at least 1. An oversubscribed libtorch pool costs
   * far more than an idle core (each op waits for its slowest thread), so rounding goes down.
   * A negative load (not available on this OS) counts as an idle machine.
   */
  public static int choose(int cores, double loadAverage) {
    double load = loadAverage < 0 ? 0 : loadAverage;
    return (int) Math.max(1, Math.min(cores, Math.floor(cores - load + 0.25)));
  }

  /** The thread count in effect. */
  public static int get() {
    Engine.getInstance();
    return JniUtils.getNumThreads();
  }
}
