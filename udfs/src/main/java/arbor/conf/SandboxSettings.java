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
 * @param replHeapMb what one REPL may keep after a cell; 0 = a quarter of workerHeapMb
 */
public record SandboxSettings(
    int workers,
    int sessionsPerWorker,
    int workerHeapMb,
    int cellsPerWorker,
    List<String> jvmOptions,
    Duration startTimeout,
    String logDir,
    Duration restoreMaxActive,
    Duration heartbeatInterval,
    Duration heartbeatTimeout,
    int replHeapMb) implements Serializable {

  public WorkerPoolConfig pool() {
    String cache = System.getProperty("polyglot.engine.userResourceCache");
    int cells = cellsPerWorker > 0 ? cellsPerWorker : Math.max(1, Runtime.getRuntime().availableProcessors() / workers);
    return new WorkerPoolConfig(workers, sessionsPerWorker, workerHeapMb, jvmOptions, cache == null ? null : Path.of(cache),
        startTimeout, logDir.isBlank() ? null : Path.of(logDir), cells, restoreMaxActive, heartbeatInterval,
        heartbeatTimeout, replHeapMb > 0 ? replHeapMb : Math.max(1, workerHeapMb / 4));
  }
}
