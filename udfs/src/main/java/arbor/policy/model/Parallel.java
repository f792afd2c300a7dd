package arbor.policy.model;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * The CPU threads of the engine's own kernels: the caller's and a small daemon pool. Tasks are
 * claimed one at a time, so uneven ones (queries with long and short contexts) balance; which
 * thread runs a task never changes its result.
 */
public final class Parallel implements AutoCloseable {

  private final int threads;
  private final ExecutorService pool;

  /** {@code threads} threads in all: the caller's and {@code threads - 1} pooled ones. */
  public Parallel(int threads, String name) {
    this.threads = Math.max(1, threads);
    this.pool = this.threads == 1 ? null : Executors.newFixedThreadPool(this.threads - 1,
        Thread.ofPlatform().daemon().name(name + "-", 0).factory());
  }

  public int threads() {
    return threads;
  }

  /** Runs {@code task} for every index in [0, tasks) and returns when all are done. */
  public void forEach(int tasks, IntConsumer task) {
    // After close the caller runs everything: a late call finishes rather than fails.
    int helpers = pool == null || pool.isShutdown() ? 0 : Math.min(threads, tasks) - 1;
    if (helpers <= 0) {
      for (int i = 0; i < tasks; i++) {
        task.accept(i);
      }
      return;
    }
    AtomicInteger next = new AtomicInteger();
    Runnable worker = () -> {
      try {
        for (int i = next.getAndIncrement(); i < tasks; i = next.getAndIncrement()) {
          task.accept(i);
        }
      } catch (RuntimeException | Error e) {
        next.set(tasks);  // whichever thread failed, the others stop at their next claim
        throw e;
      }
    };
    Future<?>[] running = new Future<?>[helpers];
    for (int h = 0; h < helpers; h++) {
      running[h] = pool.submit(worker);
    }
    RuntimeException failed = null;
    try {
      worker.run();
    } catch (RuntimeException e) {
      failed = e;
    }
    for (Future<?> f : running) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for kernel threads", e);
      } catch (ExecutionException e) {
        if (failed == null) {
          failed = e.getCause() instanceof RuntimeException r ? r
              : new IllegalStateException("a kernel thread failed", e.getCause());
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
