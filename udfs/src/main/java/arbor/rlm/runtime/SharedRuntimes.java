package arbor.rlm.runtime;

import arbor.conf.ApiKeys;
import arbor.conf.ArborConfig;
import arbor.conf.RolloutSettings.SandboxMode;
import arbor.policy.holder.CheckpointSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The runtimes of this JVM, one per configuration, sandbox mode and checkpoint source: every task
 * of an executor that runs trees under the same settings shares one ({@link #of}), so one sandbox
 * pool and one model holder per device serve them all. Each is created on first use and closed
 * when the JVM exits (a shutdown hook) or by {@link #closeAll}.
 */
public final class SharedRuntimes {
  private SharedRuntimes() {}

  private record Key(ArborConfig config, SandboxMode mode, CheckpointSource checkpoints) {}

  private static final Map<Key, RlmRuntime> SHARED = new HashMap<>();
  private static boolean hooked;

  /**
   * The JVM's runtime for this configuration. {@code checkpoints} serves policy versions above 0
   * (null: only the base model); {@code keys} are the endpoints' API keys, read by the job.
   */
  public static RlmRuntime of(ArborConfig config, SandboxMode mode, CheckpointSource checkpoints, ApiKeys keys) {
    synchronized (SHARED) {
      if (!hooked) {
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("arbor-runtime-close")
            .unstarted(SharedRuntimes::closeAll));
        hooked = true;
      }
      return SHARED.computeIfAbsent(new Key(config, mode, checkpoints),
          k -> new RlmRuntime(config, mode, checkpoints, keys));
    }
  }

  /** Closes every shared runtime (the JVM's shutdown hook; tests that want a fresh start). */
  public static void closeAll() {
    List<RlmRuntime> all;
    synchronized (SHARED) {
      all = new ArrayList<>(SHARED.values());
      SHARED.clear();
    }
    all.forEach(RlmRuntime::close);
  }

  /** A runtime closed on its own is no longer handed out. */
  static void forget(RlmRuntime runtime) {
    synchronized (SHARED) {
      SHARED.values().remove(runtime);
    }
  }
}
