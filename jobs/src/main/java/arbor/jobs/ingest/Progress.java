package arbor.jobs.ingest;

import java.io.PrintStream;
import java.util.function.LongSupplier;

/**
 * Prints "files done / total, errors so far" every few seconds while a Spark action runs. The
 * counts come from accumulators, which reach the driver as each task finishes; a file whose task
 * ran twice counts once.
 */
final class Progress implements AutoCloseable {
  private final Thread thread;

  Progress(PrintStream out, String label, long total, LongSupplier done, LongSupplier errors) {
    thread = Thread.ofPlatform().daemon().name("arbor-progress").start(() -> {
      long lastDone = -1;
      try {
        while (true) {
          Thread.sleep(2000);
          long d = done.getAsLong();
          if (d != lastDone) {
            out.printf("%s: %d/%d files, %d with errors so far%n", label, d, total, errors.getAsLong());
            lastDone = d;
          }
        }
      } catch (InterruptedException e) {
        // close() ends the reporting.
      }
    });
  }

  @Override
  public void close() {
    thread.interrupt();
  }
}
