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

  /** A bridge that stops this clock while the host answers. */
  HostBridge pausing(HostBridge bridge) {
    return (name, args) -> {
      pause();
      try {
        return bridge.call(name, args);
      } finally {
        resume();
      }
    };
  }
}
