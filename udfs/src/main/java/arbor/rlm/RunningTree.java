package arbor.rlm;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One tree's shared state while it runs: its id, seed and caps, the budgets its nodes draw on
 * (nodes, generated tokens, the wall-time deadline), its finished records, and the count of its
 * threads still running.
 */
final class RunningTree {
  final String id;
  final RlmLimits limits;
  final long deadlineNanos;
  final long seed;
  final AtomicInteger nodes = new AtomicInteger();
  final AtomicLong tokens = new AtomicLong();
  final ConcurrentLinkedQueue<NodeRecord> records = new ConcurrentLinkedQueue<>();
  final Liveness live = new Liveness();

  RunningTree(String id, RlmLimits limits, long deadlineNanos, long seed) {
    this.id = id;
    this.limits = limits;
    this.deadlineNanos = deadlineNanos;
    this.seed = seed;
  }

  String rootId() {
    return id + ":root";
  }

  /** Counts a tree's running node threads and host calls; the tree ends when none is left. */
  static final class Liveness {
    private int live;

    synchronized void enter() {
      live++;
    }

    synchronized void exit() {
      if (--live == 0) {
        notifyAll();
      }
    }

    synchronized void awaitIdle() {
      boolean interrupted = false;
      while (live > 0) {
        try {
          wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
