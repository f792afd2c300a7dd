package arbor.rlm.sandbox;

import arbor.conf.SandboxSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The pool of sandbox worker processes of one JVM.
 *
 * @param workers worker processes at most [2]
 * @param sessionsPerWorker REPLs one worker hosts at once; {@code open} waits when all are taken.
 *     A worker killed for one runaway cell takes its other REPLs with it, so fewer sessions per
 *     worker means a smaller blast radius and more memory [256]
 * @param workerHeapMb {@code -Xmx} of a worker: the memory limit of its sandboxes together [2048]
 * @param jvmOptions further options of the worker JVM (the module opening flags of this JVM are
 *     passed on by default)
 * @param resourceCache GraalPy's resource cache ({@code polyglot.engine.userResourceCache}), or
 *     null for GraalPy's default
 * @param startTimeout how long a worker may take to start [120 s]
 * @param logDir where worker logs go, or null to discard them
 * @param cellsPerWorker cells one worker computes at once; more wait for a slot, with their
 *     clocks stopped [cores / workers, at least 1]
 * @param restoreMaxActive a REPL lost with its worker (killed for another REPL's cell, died,
 *     stopped answering) is restored in a fresh worker by replaying its cells, when their
 *     computing time together is at most this; zero restores none [60 s]
 * @param heartbeatInterval how often the host asks each worker whether it still answers [2 s]
 * @param heartbeatTimeout a worker that has not answered for this long is killed and its REPLs
 *     restored [20 s]
 * @param replHeapMb what one REPL may keep after its cell ends, checked when its worker's heap
 *     is more than half full; a REPL keeping more has its variables cleared, with an error [
 *     a quarter of workerHeapMb]
 */
public record WorkerPoolConfig(
    int workers,
    int sessionsPerWorker,
    int workerHeapMb,
    List<String> jvmOptions,
    Path resourceCache,
    Duration startTimeout,
    Path logDir,
    int cellsPerWorker,
    Duration restoreMaxActive,
    Duration heartbeatInterval,
    Duration heartbeatTimeout,
    int replHeapMb) {

  public WorkerPoolConfig {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1, got " + workers);
    }
    if (sessionsPerWorker < 1) {
      throw new IllegalArgumentException("sessionsPerWorker must be at least 1, got " + sessionsPerWorker);
    }
    if (workerHeapMb < 128) {
      throw new IllegalArgumentException("workerHeapMb must be at least 128, got " + workerHeapMb);
    }
    if (cellsPerWorker < 1) {
      throw new IllegalArgumentException("cellsPerWorker must be at least 1, got " + cellsPerWorker);
    }
    if (restoreMaxActive.isNegative()) {
      throw new IllegalArgumentException("restoreMaxActive must not be negative, got " + restoreMaxActive);
    }
    if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()
        || heartbeatTimeout.compareTo(heartbeatInterval) <= 0) {
      throw new IllegalArgumentException("heartbeatInterval must be positive and less than heartbeatTimeout, got "
          + heartbeatInterval + " and " + heartbeatTimeout);
    }
    if (replHeapMb < 1) {
      throw new IllegalArgumentException("replHeapMb must be at least 1, got " + replHeapMb);
    }
    jvmOptions = List.copyOf(jvmOptions);
  }

  /** A pool with the default restore, heartbeat and per-REPL heap settings. */
  public WorkerPoolConfig(int workers, int sessionsPerWorker, int workerHeapMb, List<String> jvmOptions,
      Path resourceCache, Duration startTimeout, Path logDir, int cellsPerWorker) {
    this(workers, sessionsPerWorker, workerHeapMb, jvmOptions, resourceCache, startTimeout, logDir, cellsPerWorker,
        Duration.ofSeconds(60), Duration.ofSeconds(2), Duration.ofSeconds(20), Math.max(1, workerHeapMb / 4));
  }

  public WorkerPoolConfig withRestoreMaxActive(Duration d) {
    return new WorkerPoolConfig(workers, sessionsPerWorker, workerHeapMb, jvmOptions, resourceCache, startTimeout,
        logDir, cellsPerWorker, d, heartbeatInterval, heartbeatTimeout, replHeapMb);
  }

  public WorkerPoolConfig withHeartbeat(Duration interval, Duration timeout) {
    return new WorkerPoolConfig(workers, sessionsPerWorker, workerHeapMb, jvmOptions, resourceCache, startTimeout,
        logDir, cellsPerWorker, restoreMaxActive, interval, timeout, replHeapMb);
  }

  public WorkerPoolConfig withReplHeapMb(int mb) {
    return new WorkerPoolConfig(workers, sessionsPerWorker, workerHeapMb, jvmOptions, resourceCache, startTimeout,
        logDir, cellsPerWorker, restoreMaxActive, heartbeatInterval, heartbeatTimeout, mb);
  }

  public WorkerPoolConfig withStartTimeout(Duration d) {
    return new WorkerPoolConfig(workers, sessionsPerWorker, workerHeapMb, jvmOptions, resourceCache, d,
        logDir, cellsPerWorker, restoreMaxActive, heartbeatInterval, heartbeatTimeout, replHeapMb);
  }

  /**
   * The pool of the configuration's {@code sandbox} section: 0 cells per worker means this
   * machine's cores shared among the workers, a 0 REPL heap a quarter of a worker's.
   */
  public static WorkerPoolConfig of(SandboxSettings s) {
    int cells = s.cellsPerWorker() > 0 ? s.cellsPerWorker() : Math.max(1, Runtime.getRuntime().availableProcessors() / s.workers());
    return new WorkerPoolConfig(s.workers(), s.sessionsPerWorker(), s.workerHeapMb(), s.jvmOptions(),
        thisJvmResourceCache(), s.startTimeout(), s.logDir().isBlank() ? null : Path.of(s.logDir()), cells,
        s.restoreMaxActive(), s.heartbeatInterval(), s.heartbeatTimeout(),
        s.replHeapMb() > 0 ? s.replHeapMb() : Math.max(1, s.workerHeapMb() / 4));
  }

  public static WorkerPoolConfig defaults() {
    int workers = 2;
    return new WorkerPoolConfig(workers, 256, 2048, List.of(), thisJvmResourceCache(),
        Duration.ofSeconds(120), null, Math.max(1, Runtime.getRuntime().availableProcessors() / workers));
  }

  /** GraalPy's own resource cache of this JVM, handed on to the workers; null when unset. */
  private static Path thisJvmResourceCache() {
    String cache = System.getProperty("polyglot.engine.userResourceCache");
    return cache == null ? null : Path.of(cache);
  }
}
