package arbor.rlm.sandbox;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One worker pool shared by the sandbox test classes of this JVM (starting a worker costs
 * seconds on two cores). Killed workers are replaced by the pool itself; the pool is closed, and
 * its processes killed, when the test JVM exits.
 */
final class TestPools {
  static final SandboxLimits LIMITS = new SandboxLimits(Duration.ofSeconds(3), Duration.ofSeconds(2), 4_000);

  private TestPools() {}

  static WorkerPoolConfig config(int workers) {
    return config(workers, 2);
  }

  static WorkerPoolConfig config(int workers, int cellsPerWorker) {
    String repo = System.getProperty("arbor.repo", ".");
    return new WorkerPoolConfig(workers, 64, 384, List.of("-XX:TieredStopAtLevel=1"),
        WorkerPoolConfig.defaults().resourceCache(), Duration.ofSeconds(120),
        Path.of(repo, "udfs", "target", "sandbox-logs"), cellsPerWorker);
  }

  private static final class Holder {
    static final WorkerPool POOL = create();

    private static WorkerPool create() {
      WorkerPool pool = new WorkerPool(config(2), LIMITS);
      Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(pool::close));
      return pool;
    }
  }

  static WorkerPool shared() {
    return Holder.POOL;
  }
}
