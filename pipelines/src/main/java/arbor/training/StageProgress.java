package arbor.training;

import java.util.function.Consumer;
import org.apache.spark.SparkStageInfo;
import org.apache.spark.SparkStatusTracker;
import org.apache.spark.sql.SparkSession;

/**
 * A console line every few seconds while a phase runs: the finished and total tasks of the
 * Spark stages active now, from the driver's status tracker (it works the same on a cluster,
 * where the executors' own counters are out of reach).
 */
final class StageProgress implements AutoCloseable {
  private final Thread thread;

  StageProgress(SparkSession spark, String label, int everySeconds, Consumer<String> console) {
    SparkStatusTracker tracker = spark.sparkContext().statusTracker();
    long start = System.nanoTime();
    thread = new Thread(() -> {
      try {
        while (true) {
          Thread.sleep(everySeconds * 1000L);
          int done = 0;
          int total = 0;
          for (int id : tracker.getActiveStageIds()) {
            SparkStageInfo info = tracker.getStageInfo(id).getOrElse(() -> null);
            if (info == null) continue;
            done += info.numCompletedTasks();
            total += info.numTasks();
          }
          console.accept(String.format("  %s: %d of %d tasks of the active stages done, %.0f s", label, done, total,
              (System.nanoTime() - start) / 1e9));
        }
      } catch (InterruptedException e) {
        // close(): the phase ended.
      }
    }, "arbor-progress");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void close() {
    thread.interrupt();
    try {
      thread.join(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
