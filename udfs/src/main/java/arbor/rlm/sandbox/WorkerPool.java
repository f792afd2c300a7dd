package arbor.rlm.sandbox;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs REPLs isolated from this JVM, in a pool of sandbox worker processes that each host many
 * REPLs on one engine. A runaway cell (an uninterruptible built-in, memory exhaustion) costs a
 * worker, never this JVM: the worker is retired (see {@link #retire}) and a fresh one takes its
 * place on the next open.
 * The pool owns its processes; {@link #close()} kills them.
 */
public final class WorkerPool implements Sandbox {
  private final WorkerPoolConfig config;
  private final SandboxLimits limits;
  private final List<WorkerProcess> workers = new ArrayList<>();
  /** Workers that take no new REPLs (a runaway cell computes on in them), oldest first. */
  private final List<WorkerProcess> retired = new ArrayList<>();
  private final Semaphore slots;
  private final AtomicLong sessionIds = new AtomicLong();
  private int started;
  private boolean closed;

  public WorkerPool(WorkerPoolConfig config, SandboxLimits limits) {
    this.config = config;
    this.limits = limits;
    this.slots = new Semaphore(config.workers() * config.sessionsPerWorker(), true);
  }

  public SandboxLimits limits() {
    return limits;
  }

  /** Starts all workers now, so that the first nodes do not pay for it. */
  public void warmUp() {
    List<Thread> starting = new ArrayList<>();
    for (int i = 0; i < config.workers(); i++) {
      starting.add(Thread.ofVirtual().start(() -> {
        try {
          WorkerProcess w = startWorker();
          synchronized (this) {
            if (workers.size() < config.workers() && !closed) {
              workers.add(w);
              return;
            }
          }
          w.close();
        } catch (IOException e) {
          // open() starts one again and reports the failure
        }
      }));
    }
    for (Thread t : starting) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Live worker processes, for tests and metrics. */
  public synchronized List<Long> workerPids() {
    return workers.stream().filter(WorkerProcess::alive).map(w -> w.pid()).toList();
  }

  @Override
  public SandboxSession open(String contextJson, String question, HostBridge bridge) {
    // Bounded wait: a parent holds its slot while its children wait for theirs, so a pool
    // too small for the tree would otherwise deadlock; the child fails instead, with a reason.
    try {
      if (!slots.tryAcquire(config.startTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
        throw new SandboxUnavailableException("no free REPL slot within " + config.startTimeout()
            + " (" + config.workers() + " workers x " + config.sessionsPerWorker()
            + " sessions); raise the pool's size for this many concurrent nodes", null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SandboxUnavailableException("interrupted while waiting for a free REPL slot", e);
    }
    try {
      long sid = sessionIds.incrementAndGet();
      for (int attempt = 1; ; attempt++) {
        WorkerProcess worker = pick();
        IsolatedSession session = new IsolatedSession(this, worker, sid, contextJson, question, bridge, limits);
        String error = worker.open(sid, contextJson, question, limits.maxOutputChars(), session);
        if (error == null) {
          return session;
        }
        if (worker.alive() || attempt == 2) {
          throw new SandboxUnavailableException(error, null);
        }
      }
    } catch (RuntimeException e) {
      slots.release();
      throw e;
    }
  }

  void release(WorkerProcess worker, long sid) {
    worker.forget(sid);
    slots.release();
  }

  /** Opens REPL {@code session} again, in a live worker, after its own was lost. */
  WorkerProcess reopen(IsolatedSession session, String contextJson, String question) {
    for (int attempt = 1; ; attempt++) {
      WorkerProcess worker = pick();
      String error = worker.open(session.sid(), contextJson, question, limits.maxOutputChars(), session);
      if (error == null) {
        return worker;
      }
      if (worker.alive() || attempt == 2) {
        throw new SandboxUnavailableException(error, null);
      }
    }
  }

  Duration restoreBudget() {
    return config.restoreMaxActive();
  }

  /** A session waiting for its children gives its slot to them... */
  void lend() {
    slots.release();
  }

  /** ...and takes one back when they have answered. */
  void reclaim() {
    slots.acquireUninterruptibly();
  }

  /**
   * A cancelled node's cell was interrupted and its REPL given up, but a built-in that ignores
   * interrupts would compute on: past the grace period it costs its worker, like any runaway.
   */
  void watchAbandoned(IsolatedSession session, CompletableFuture<CellResult> cell) {
    WorkerProcess worker = session.worker();
    Thread.ofVirtual().name("arbor-abandoned-" + session.sid()).start(() -> {
      try {
        cell.get(limits.interruptGrace().toMillis() * 2 + 1_000, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        retire(worker, "a cancelled cell ignored its interrupt");
      } catch (InterruptedException | ExecutionException e) {
        // nothing to do: the cell ended one way or another
      }
    });
  }

  /** How long a retired worker may go on serving its REPLs before it is stopped anyway. */
  static final Duration DRAIN_LIMIT = Duration.ofMinutes(2);

  /**
   * Retires a worker whose cell ran away and ignored its interrupt: the worker has given that
   * cell's thread idle priority, so it takes no new REPLs but serves the ones it has until they
   * close; then it is stopped. Its REPLs still open after {@link #DRAIN_LIMIT}, or when more
   * workers are retired than the pool has, are restored elsewhere when it stops. Killing it at
   * once would make every REPL in it restore at the same moment.
   */
  void retire(WorkerProcess worker, String why) {
    List<WorkerProcess> over = new ArrayList<>();
    synchronized (this) {
      if (!workers.remove(worker)) {
        return; // retired or gone already
      }
      retired.add(worker);
      while (retired.size() > config.workers()) {
        over.add(retired.removeFirst());
      }
    }
    over.forEach(w -> kill(w, "too many retired sandbox workers at once"));
    Thread.ofVirtual().name("arbor-retired-worker-" + worker.index()).start(() -> drain(worker, why));
  }

  private void drain(WorkerProcess worker, String why) {
    long deadline = System.nanoTime() + DRAIN_LIMIT.toNanos();
    try {
      while (worker.alive() && worker.sessions() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    kill(worker, why);
  }

  /** Kills a worker now; the REPLs still in it are restored elsewhere. */
  void kill(WorkerProcess worker, String why) {
    synchronized (this) {
      workers.remove(worker);
      retired.remove(worker);
    }
    worker.kill(why);
    // Wait for the exit, so that the memory and CPU it held are free when the caller goes on.
    worker.awaitExit();
  }

  private synchronized WorkerProcess pick() {
    if (closed) {
      throw new SandboxUnavailableException("the sandbox pool is closed", null);
    }
    workers.removeIf(w -> !w.alive());
    WorkerProcess least = workers.stream().min(Comparator.comparingInt(WorkerProcess::sessions)).orElse(null);
    if (least == null || (least.sessions() > 0 && workers.size() < config.workers())) {
      try {
        WorkerProcess fresh = startWorker();
        workers.add(fresh);
        return fresh;
      } catch (IOException e) {
        if (least == null) {
          throw new SandboxUnavailableException(e.getMessage(), e);
        }
      }
    }
    return least;
  }

  private WorkerProcess startWorker() throws IOException {
    int index;
    synchronized (this) {
      index = started++;
    }
    return WorkerProcess.start(index, config);
  }

  @Override
  public void close() {
    List<WorkerProcess> toClose;
    synchronized (this) {
      closed = true;
      toClose = new ArrayList<>(workers);
      toClose.addAll(retired);
      workers.clear();
      retired.clear();
    }
    toClose.forEach(WorkerProcess::close);
  }

  /** No REPL could be opened: the pool is closed or no worker would start. */
  public static final class SandboxUnavailableException extends RuntimeException {
    SandboxUnavailableException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
