package arbor.rlm.sandbox;

/**
 * Active wall time of one cell: runs while the cell computes, stands still while the cell waits
 * for a host callback (a child RLM may take minutes and must not count against its parent).
 */
final class CellClock {
  private long activeNanos;
  private long runningSince;
  private int paused;

  synchronized void start() {
    activeNanos = 0;
    paused = 0;
    runningSince = System.nanoTime();
  }

  /** Starts a cell that is not running yet: it waits for a CPU slot, and that wait is free. */
  synchronized void startPaused() {
    activeNanos = 0;
    paused = 1;
  }

  synchronized void pause() {
    if (paused++ == 0) {
      activeNanos += System.nanoTime() - runningSince;
    }
  }

  synchronized void resume() {
    if (--paused == 0) {
      runningSince = System.nanoTime();
    }
  }

  synchronized long activeNanos() {
    return paused > 0 ? activeNanos : activeNanos + System.nanoTime() - runningSince;
  }

  /**
   * A bridge that stops this clock and gives the cell's CPU slot back while the host answers, so
   * that a parent waiting for its children neither spends its time limit nor starves them.
   */
  HostBridge pausing(HostBridge bridge, CpuSlots slots) {
    return (name, args) -> {
      pause();
      slots.release();
      try {
        return bridge.call(name, args);
      } finally {
        slots.acquire();
        resume();
      }
    };
  }
}
