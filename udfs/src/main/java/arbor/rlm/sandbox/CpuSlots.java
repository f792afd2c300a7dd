package arbor.rlm.sandbox;

import java.util.concurrent.Semaphore;

/**
 * How many cells compute at once in one JVM. Many nodes may have a cell to run, but a cell's
 * wall-time limit only means something if the cell gets a core: cells beyond the slots wait, and
 * their clocks stand still while they wait. A cell waiting for a host callback holds no slot.
 */
final class CpuSlots {
  private final Semaphore permits;

  CpuSlots(int slots) {
    if (slots < 1) {
      throw new IllegalArgumentException("cell slots must be at least 1, got " + slots);
    }
    this.permits = new Semaphore(slots, true);
  }

  void acquire() {
    permits.acquireUninterruptibly();
  }

  /** Waits for a slot in turn; false when the waiting thread is interrupted first. */
  boolean acquireInterruptibly() {
    try {
      permits.acquire();
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  void release() {
    permits.release();
  }
}
