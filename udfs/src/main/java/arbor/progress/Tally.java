package arbor.progress;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts a driver-side loop's units for a {@link Progress} on another thread: the loop adds, the
 * reporter reads. The total may be set once the loop knows it.
 */
public final class Tally {
  private final AtomicLong done = new AtomicLong();
  private final AtomicLong total = new AtomicLong();

  public void add(long units) {
    done.addAndGet(units);
  }

  public void total(long units) {
    total.set(units);
  }

  public long done() {
    return done.get();
  }

  public long total() {
    return total.get();
  }
}
