package arbor.conf;

import java.io.Serializable;
import java.time.Duration;
import java.util.List;

/**
 * The pool of sandbox worker processes of one JVM (see {@code arbor.rlm.sandbox.WorkerPoolConfig} for each field).
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
    int replHeapMb) implements Serializable {}
