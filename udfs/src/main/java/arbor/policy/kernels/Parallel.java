package arbor.policy.kernels;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * The CPU threads of the engine's own kernels: the caller's and a few daemon helpers. Tasks are
 * claimed one at a time, so uneven ones (queries with long and short contexts) balance; which
 * thread runs a task never changes its result.
 *
 * <p>A decode step runs some sixty of these jobs, a few hundred microseconds each, with
 * microseconds of the caller's own work between them. Waking a parked thread took about 50 us on
 * the virtual machines measured, twice per job (the helper to start, the caller to finish), so
 * helpers spin for a short while after a job before they park, and the caller spins before it
 * waits for them: the threads stay awake through a step and sleep between steps.
 */
public final class Parallel implements AutoCloseable {

  /** How long a helper looks for the next job before it parks. */
  private static final long HELPER_SPIN_NANOS = 200_000;
  /** How long the caller spins for helpers still running before it parks. */
  private static final long CALLER_SPIN_NANOS = 2_000_000;

  private final int threads;
  private final Thread[] helpers;
  private final AtomicReference<Job> current = new AtomicReference<>();
  private volatile boolean closed;
  /** Whether a {@link #forEach} is running: a call from its tasks, or beside it, runs inline. */
  private final AtomicBoolean busy = new AtomicBoolean();

  /**
   * One call of {@link #forEach}: its tasks, the next unclaimed one, and the helpers that joined
   * it. Once the caller has claimed the last task it closes the job to latecomers, so it waits
   * only for helpers still running a task, never for one that has yet to wake.
   */
  private static final class Job {
    private static final int CLOSED = Integer.MIN_VALUE;

    final int tasks;
    final IntConsumer task;
    final Thread caller = Thread.currentThread();
    final AtomicInteger next = new AtomicInteger();
    /** Helpers that joined, with {@link #CLOSED} set once no more may. */
    final AtomicInteger joined = new AtomicInteger();
    final AtomicInteger finished = new AtomicInteger();
    volatile Throwable failure;

    Job(int tasks, IntConsumer task) {
      this.tasks = tasks;
      this.task = task;
    }

    /** Claims and runs tasks until none are left; a failure stops every thread's claims. */
    void work() {
      try {
        for (int i = next.getAndIncrement(); i < tasks; i = next.getAndIncrement()) {
          task.accept(i);
        }
      } catch (RuntimeException | Error e) {
        if (failure == null) {
          failure = e;
        }
        next.set(tasks);
      }
    }

    /** A helper's part, unless the job was already closed to it. */
    void help() {
      int n;
      do {
        n = joined.get();
        if (n < 0) {
          return;
        }
      } while (!joined.compareAndSet(n, n + 1));
      work();
      finished.incrementAndGet();
      LockSupport.unpark(caller);
    }

    /** The caller's part: its claims, then the wait for helpers still running theirs. */
    void run() {
      work();
      int helpers = joined.getAndUpdate(n -> n | CLOSED);
      long spinUntil = System.nanoTime() + CALLER_SPIN_NANOS;
      while (finished.get() < helpers) {
        if (System.nanoTime() < spinUntil) {
          Thread.onSpinWait();
        } else {
          LockSupport.parkNanos(100_000);  // a finishing helper unparks it; the bound is a fallback
        }
      }
    }
  }

  /** {@code threads} threads in all: the caller's and {@code threads - 1} helpers. */
  public Parallel(int threads, String name) {
    this.threads = Math.max(1, threads);
    this.helpers = new Thread[this.threads - 1];
    for (int h = 0; h < helpers.length; h++) {
      helpers[h] = Thread.ofPlatform().daemon().name(name + "-" + h).start(this::help);
    }
  }

  public int threads() {
    return threads;
  }

  /** Runs {@code task} for every index in [0, tasks) and returns when all are done. */
  public void forEach(int tasks, IntConsumer task) {
    // After close the caller runs everything: a late call finishes rather than fails. So does
    // a call from inside a task, and one made while another thread's call runs.
    if (tasks < 2 || helpers.length == 0 || closed || !busy.compareAndSet(false, true)) {
      for (int i = 0; i < tasks; i++) {
        task.accept(i);
      }
      return;
    }
    try {
      Job job = new Job(tasks, task);
      current.set(job);
      for (int h = 0; h < Math.min(helpers.length, tasks - 1); h++) {
        LockSupport.unpark(helpers[h]);
      }
      job.run();
      current.set(null);
      if (job.failure instanceof RuntimeException r) {
        throw r;
      }
      if (job.failure instanceof Error e) {
        throw e;
      }
    } finally {
      busy.set(false);
    }
  }

  /** A helper's life: join each job it sees, spin a while for the next, then park. */
  private void help() {
    Job seen = null;
    while (!closed) {
      Job job = current.get();
      if (job != null && job != seen) {
        seen = job;
        job.help();
      } else {
        idle(seen);
      }
    }
  }

  /** Waits for a job other than {@code seen}: spinning at first, then parked until unparked. */
  private void idle(Job seen) {
    long spinUntil = System.nanoTime() + HELPER_SPIN_NANOS;
    while (!closed && System.nanoTime() < spinUntil) {
      Job job = current.get();
      if (job != null && job != seen) {
        return;
      }
      Thread.onSpinWait();
    }
    LockSupport.park(this);
  }

  @Override
  public void close() {
    closed = true;
    for (Thread h : helpers) {
      LockSupport.unpark(h);
    }
  }
}
