package arbor.progress;

import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Reports a long phase's progress ({@link ProgressLine}) at a steady pace: a line every
 * {@code everySeconds} while it runs, whether or not the count moved (a silent console looks
 * like a hang), and a last line when it ends. Lines only, never a carriage return, so that a log
 * file holds the same text as the terminal.
 *
 * <p>Where the counts come from is the caller's: an accumulator of the Spark tasks that do the
 * work, or a {@link Tally} the driver's loop advances. {@link #start} polls on a daemon thread;
 * {@link #poll} is public so that a test can drive the pacing with a clock of its own.
 */
public final class Progress implements AutoCloseable {
  private final String label;
  private final String unit;
  private final LongSupplier done;
  private final LongSupplier total;
  private final long everyNanos;
  private final LongSupplier clock;
  private final Consumer<String> console;
  private final long start;
  private long lastLine;
  private String last = "";
  private long completedAt = -1;
  private boolean finished;
  private Thread thread;

  /**
   * @param done the units done so far
   * @param total the units the phase will do; 0 or less while unknown
   * @param clock nanoseconds, as {@link System#nanoTime}
   */
  public Progress(String label, String unit, LongSupplier done, LongSupplier total, int everySeconds,
      LongSupplier clock, Consumer<String> console) {
    if (everySeconds < 1) throw new IllegalArgumentException("progress: everySeconds must be >= 1, got " + everySeconds);
    this.label = label;
    this.unit = unit;
    this.done = done;
    this.total = total;
    this.everyNanos = everySeconds * 1_000_000_000L;
    this.clock = clock;
    this.console = console;
    this.start = clock.getAsLong();
    this.lastLine = start;
  }

  /** A reporter on the system clock, polling on a daemon thread until {@link #close}. */
  public static Progress start(String label, String unit, LongSupplier done, LongSupplier total, int everySeconds,
      Consumer<String> console) {
    Progress p = new Progress(label, unit, done, total, everySeconds, System::nanoTime, console);
    // A poll every second keeps the lines within a second of their pace without a busy thread.
    p.thread = Thread.ofPlatform().daemon().name("arbor-progress").start(() -> {
      try {
        while (true) {
          Thread.sleep(1000);
          p.poll();
        }
      } catch (InterruptedException e) {
        // close(): the phase ended.
      }
    });
    return p;
  }

  /** Prints a line if {@code everySeconds} have passed since the last one (or the start). */
  public synchronized void poll() {
    long now = clock.getAsLong();
    ProgressLine l = line(now);  // every poll, so that the moment the work completes is seen within a second
    if (finished || now - lastLine < everyNanos) return;
    lastLine = now;
    print(l);
  }

  /**
   * The report as of now, printed or not. Once every unit is done the rate stays that of the
   * work: a phase that goes on writing its results does not show its units slowing down.
   */
  public synchronized ProgressLine line(long now) {
    long t = total.getAsLong();
    long d = done.getAsLong();
    // A retried Spark task counts its units again; the phase never does more than its total.
    if (t > 0 && d >= t) {
      d = t;
      if (completedAt < 0) completedAt = now;
    }
    ProgressLine l = new ProgressLine(label, unit, d, t, (now - start) / 1e9);
    return completedAt < 0 ? l : l.withRateOver((completedAt - start) / 1e9);
  }

  private void print(ProgressLine l) {
    String s = l.format();
    if (s.equals(last)) return;  // the last poll and the end in the same second: one line
    last = s;
    console.accept(s);
  }

  /** Stops the polling and prints the last line, once. */
  @Override
  public void close() {
    if (thread != null) {
      thread.interrupt();
      try {
        thread.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (this) {
      if (finished) return;
      finished = true;
      print(line(clock.getAsLong()));
    }
  }
}
