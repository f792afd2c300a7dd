package arbor.rlm.sandbox;

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
 * @param workerHeapMb {@code -Xmx} of a worker: the memory limit of its sandboxes together [1024]
 * @param jvmOptions further options of the worker JVM (the module opening flags of this JVM are
 *     passed on by default)
 * @param resourceCache GraalPy's resource cache ({@code polyglot.engine.userResourceCache}), or
 *     null for GraalPy's default
 * @param startTimeout how long a worker may take to start [120 s]
 * @param logDir where worker logs go, or null to discard them
 * @param cellsPerWorker cells one worker computes at once; more wait for a slot, with their
 *     clocks stopped [cores / workers, at least 1]
 */
public record WorkerPoolConfig(
    int workers,
    int sessionsPerWorker,
    int workerHeapMb,
    List<String> jvmOptions,
    Path resourceCache,
    Duration startTimeout,
    Path logDir,
    int cellsPerWorker) {

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
    jvmOptions = List.copyOf(jvmOptions);
  }

  public static WorkerPoolConfig defaults() {
    String cache = System.getProperty("polyglot.engine.userResourceCache");
    int workers = 2;
    return new WorkerPoolConfig(workers, 256, 1024, List.of(), cache == null ? null : Path.of(cache),
        Duration.ofSeconds(120), null, Math.max(1, Runtime.getRuntime().availableProcessors() / workers));
  }
}
