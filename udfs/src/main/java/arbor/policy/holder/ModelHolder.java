package arbor.policy.holder;

import ai.djl.Device;
import arbor.policy.generate.GenerationEngine;
import arbor.policy.model.PolicyModel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The policy of one device in this JVM, loaded lazily and shared by every task running there
 * (what the DJL Spark extension's model loader would do; that extension is not built for
 * Spark 4). It holds one checkpoint at a time with its generation engine:
 *
 * <pre>{@code
 * ModelHolder holder = ModelHolder.shared(Device.cpu(), HfFolderSource.fixed(path), options);
 * try (ModelHolder.Lease lease = holder.acquire(new CheckpointKey("run-1", 3))) {
 *   lease.engine().generate(prompt, sampling);
 * }
 * }</pre>
 *
 * <p>Asking for another key swaps: the new checkpoint is loaded and becomes current, and the old
 * one is closed when its last lease is released, so tasks still generating with it finish
 * undisturbed. Thread-safe; loading happens once however many tasks ask at the same time.
 */
public final class ModelHolder {

  private static final Map<Device, ModelHolder> SHARED = new HashMap<>();

  private final Device device;
  private final CheckpointSource source;
  private final GenerationEngine.Options options;
  private Loaded current;

  /** A loaded checkpoint and its engine, closed when retired and no longer leased. */
  private static final class Loaded {
    final CheckpointKey key;
    final PolicyModel policy;
    final GenerationEngine engine;
    int leases;
    boolean retired;

    Loaded(CheckpointKey key, PolicyModel policy, GenerationEngine engine) {
      this.key = key;
      this.policy = policy;
      this.engine = engine;
    }

    void close() {
      try {
        engine.close();
      } finally {
        policy.close();
      }
    }
  }

  /** Use of one checkpoint by one task; release it (close) when the task is done with it. */
  public final class Lease implements AutoCloseable {
    private final Loaded loaded;
    private boolean released;

    private Lease(Loaded loaded) {
      this.loaded = loaded;
    }

    public CheckpointKey key() {
      return loaded.key;
    }

    public PolicyModel policy() {
      return loaded.policy;
    }

    public GenerationEngine engine() {
      return loaded.engine;
    }

    @Override
    public void close() {
      synchronized (ModelHolder.this) {
        if (released) {
          return;
        }
        released = true;
        loaded.leases--;
        if (loaded.retired && loaded.leases == 0) {
          loaded.close();
        }
      }
    }
  }

  public ModelHolder(Device device, CheckpointSource source, GenerationEngine.Options options) {
    this.device = device;
    this.source = source;
    this.options = options;
  }

  /**
   * The JVM's holder for {@code device}, created on first use. Every caller must pass the same
   * source: two sources for one device would mean two policies fighting over its memory.
   */
  public static ModelHolder shared(Device device, CheckpointSource source,
      GenerationEngine.Options options) {
    synchronized (SHARED) {
      ModelHolder h = SHARED.computeIfAbsent(device, d -> new ModelHolder(d, source, options));
      if (!h.source.equals(source)) {
        throw new IllegalStateException("The policy holder of " + device + " already serves "
            + h.source + "; it cannot also serve " + source + ". Use one checkpoint source per"
            + " JVM, or close() the holder first.");
      }
      return h;
    }
  }

  /** Leases the checkpoint {@code key}, loading it (and swapping out another) if needed. */
  public synchronized Lease acquire(CheckpointKey key) {
    if (current == null || !current.key.equals(key)) {
      Loaded next = load(key);
      if (current != null) {
        retire(current);
      }
      current = next;
    }
    current.leases++;
    return new Lease(current);
  }

  /** The key currently loaded, or null. */
  public synchronized CheckpointKey currentKey() {
    return current == null ? null : current.key;
  }

  /** Drops the current checkpoint (closed once unleased); the next acquire loads again. */
  public synchronized void close() {
    if (current != null) {
      retire(current);
      current = null;
    }
    synchronized (SHARED) {
      SHARED.remove(device, this);
    }
  }

  private Loaded load(CheckpointKey key) {
    PolicyModel policy;
    try {
      policy = source.load(key, device);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not load policy checkpoint " + key + " from "
          + source + ": " + e.getMessage(), e);
    }
    try {
      return new Loaded(key, policy, new GenerationEngine(policy.model(), options));
    } catch (RuntimeException e) {
      policy.close();
      throw e;
    }
  }

  private static void retire(Loaded loaded) {
    loaded.retired = true;
    if (loaded.leases == 0) {
      loaded.close();
    }
  }
}
