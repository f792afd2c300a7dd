package arbor.conf;

import arbor.rlm.sandbox.WorkerPoolConfig;
import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The pool of sandbox worker processes of one JVM (see {@link WorkerPoolConfig} for each field).
 *
 * @param cellsPerWorker cells one worker computes at once; 0 = this machine's cores / workers
 * @param logDir where worker logs go; "" discards them
 */
public record SandboxSettings(
    int workers,
    int sessionsPerWorker,
    int workerHeapMb,
    int cellsPerWorker,
    List<String> jvmOptions,
    Duration startTimeout,
    String logDir) implements Serializable {

  public WorkerPoolConfig pool() {
    String cache = System.getProperty("polyglot.engine.userResourceCache");
    int cells = cellsPerWorker > 0 ? cellsPerWorker : Math.max(1, Runtime.getRuntime().availableProcessors() / workers);
    return new WorkerPoolConfig(workers, sessionsPerWorker, workerHeapMb, jvmOptions, cache == null ? null : Path.of(cache),
        startTimeout, logDir.isBlank() ? null : Path.of(logDir), cells);
  }
}
