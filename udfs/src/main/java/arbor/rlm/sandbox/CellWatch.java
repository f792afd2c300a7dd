package arbor.rlm.sandbox;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for a running cell and enforces its wall-time limit from outside the sandbox: interrupt
 * at the limit, and give the sandbox up when the cell still runs after the grace period.
 */
final class CellWatch {
  /** How a cell is stopped; the two steps of escalation. */
  interface Stopper {
    /** Asks the cell to stop; must not block. */
    void interrupt();

    /** Gives up the sandbox that runs the cell (kills its process where there is one). */
    void kill(String why);

    /** Gives up this REPL only: later cells are lost, the sandbox runs on. */
    void abandon();
  }

  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private CellWatch() {}

  static CellResult await(Future<CellResult> cell, CellClock clock, SandboxLimits limits, Stopper stopper) {
    long limit = limits.cellWallTime().toNanos();
    long interruptedAt = 0;
    boolean interrupted = false;
    while (true) {
      long active = clock.activeNanos();
      if (!interrupted && active >= limit) {
        stopper.interrupt();
        interrupted = true;
        interruptedAt = System.nanoTime();
      }
      if (interrupted && System.nanoTime() - interruptedAt >= limits.interruptGrace().toNanos()) {
        String why = "TimeoutError: the cell ran past its wall-time limit of " + seconds(limits)
            + " and did not stop when interrupted (a long-running built-in?); the REPL was given up "
            + "and its state is lost.\n";
        stopper.kill(why);
        return CellResult.killed(why, active / 1_000_000);
      }
      long wait = interrupted ? POLL_NANOS : Math.max(1, Math.min(POLL_NANOS * 4, limit - active));
      try {
        CellResult result = cell.get(wait, TimeUnit.NANOSECONDS);
        result = result.withActiveMillis(clock.activeNanos() / 1_000_000);
        if (interrupted && !result.status().replGone()) {
          return result.withStatus(CellStatus.TIMED_OUT, "TimeoutError: the cell ran past its "
              + "wall-time limit of " + seconds(limits) + " and was stopped; variables assigned "
              + "before that are kept.\n");
        }
        return result;
      } catch (TimeoutException e) {
        // still running: check the clock again
      } catch (ExecutionException e) {
        String why = "sandbox error: " + e.getCause() + "\n";
        return CellResult.lost(why, clock.activeNanos() / 1_000_000);
      } catch (InterruptedException e) {
        // The node was cancelled: stop the cell, give up this REPL (its owner closes it), but
        // leave the sandbox itself alone - a cancellation is no reason to kill a worker.
        Thread.currentThread().interrupt();
        stopper.interrupt();
        stopper.abandon();
        return CellResult.lost("cancelled: the node was stopped while this cell ran\n",
            clock.activeNanos() / 1_000_000);
      }
    }
  }

  private static String seconds(SandboxLimits limits) {
    return limits.cellWallTime().toMillis() / 1000.0 + " s";
  }
}
