package arbor.rlm.sandbox;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;

/**
 * Runs REPLs in this JVM, on the shared {@link PythonEngine}. For trusted code only (tests, the
 * scripted expert): the access restrictions are the same as in a worker, but a long-running
 * built-in or a memory bomb here would stall or starve this JVM, since nothing can be killed.
 * A cell that ignores its interrupt is abandoned on its daemon thread and its session is lost.
 */
public final class InProcessSandbox implements Sandbox {
  private final SandboxLimits limits;
  private final CpuSlots slots;
  // Platform threads: Truffle contexts are entered from ordinary threads.
  private final ExecutorService cells = Executors.newCachedThreadPool(
      Thread.ofPlatform().daemon().name("arbor-cell-", 0).factory());

  /** A sandbox whose cells compute at most one per core at a time. */
  public InProcessSandbox(SandboxLimits limits) {
    this(limits, Runtime.getRuntime().availableProcessors());
  }

  /** @param cellSlots cells computing at once; more wait, with their clocks stopped */
  public InProcessSandbox(SandboxLimits limits, int cellSlots) {
    this.limits = limits;
    this.slots = new CpuSlots(cellSlots);
  }

  @Override
  public SandboxSession open(String contextJson, String question, HostBridge bridge) {
    CellClock clock = new CellClock();
    PythonSession python = PythonSession.open(
        PythonEngine.shared(), contextJson, question, clock.pausing(bridge, slots), limits.maxOutputChars());
    return new Session(python, clock);
  }

  @Override
  public void close() {
    cells.shutdownNow();
  }

  private final class Session implements SandboxSession {
    private final PythonSession python;
    private final CellClock clock;
    private boolean lost;

    Session(PythonSession python, CellClock clock) {
      this.python = python;
      this.clock = clock;
    }

    @Override
    public CellResult execute(String code) {
      if (lost) {
        return CellResult.lost("this REPL was lost earlier; start a new node\n", 0);
      }
      clock.startPaused();
      // Given back once, by whichever comes first: the cell's end, or its being given up.
      java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean();
      Runnable giveBack = () -> {
        if (held.compareAndSet(true, false)) {
          slots.release();
        }
      };
      Future<CellResult> cell = cells.submit(() -> {
        slots.acquire();
        held.set(true);
        clock.resume();
        try {
          return python.run(code);
        } finally {
          clock.pause();
          giveBack.run();
        }
      });
      CellResult result = CellWatch.await(cell, clock, limits, new CellWatch.Stopper() {
        @Override
        public void interrupt() {
          Thread.ofVirtual().start(() -> {
            try {
              python.interrupt(limits.interruptGrace().multipliedBy(2));
            } catch (TimeoutException e) {
              // CellWatch gives the session up when the grace period passes
            }
          });
        }

        @Override
        public void kill(String why) {
          // Nothing here can be killed: the runaway computes on, but on no slot of the others.
          lost = true;
          giveBack.run();
        }

        @Override
        public void abandon() {
          lost = true;
          giveBack.run();
        }
      });
      lost |= result.status().replGone();
      return result;
    }

    @Override
    public void close() {
      // A cell that ignored its interrupt still holds the context; closing would block on it.
      if (!lost) {
        python.close();
      } else {
        Thread.ofVirtual().start(python::close);
      }
    }
  }
}
