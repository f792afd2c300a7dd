package arbor.rlm.sandbox;

import arbor.rlm.sandbox.WorkerProtocol.Call;
import arbor.rlm.sandbox.WorkerProtocol.Reply;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/** The host side of one REPL that lives in a sandbox worker process. */
final class IsolatedSession implements SandboxSession, WorkerProcess.Listener {
  private final WorkerPool pool;
  private final WorkerProcess worker;
  private final long sid;
  private final HostBridge bridge;
  private final SandboxLimits limits;
  private final CellClock clock = new CellClock();
  private volatile CompletableFuture<CellResult> running;
  private volatile String lostBecause;
  private boolean closed;

  IsolatedSession(WorkerPool pool, WorkerProcess worker, long sid, HostBridge bridge, SandboxLimits limits) {
    this.pool = pool;
    this.worker = worker;
    this.sid = sid;
    // The worker says when the cell computes (Running messages); the clock follows it.
    this.bridge = bridge;
    this.limits = limits;
  }

  @Override
  public CellResult execute(String code) {
    if (lostBecause != null) {
      return CellResult.lost(lostBecause, 0);
    }
    CompletableFuture<CellResult> cell = new CompletableFuture<>();
    running = cell;
    if (lostBecause != null) {
      cell.complete(CellResult.lost(lostBecause, 0));
    }
    clock.startPaused();
    try {
      worker.send(new WorkerProtocol.Exec(sid, code));
    } catch (IOException e) {
      onLost("SandboxError: the sandbox worker is gone (" + e.getMessage() + "); the REPL state is lost.\n");
    }
    CellResult result = CellWatch.await(cell, clock, limits, new CellWatch.Stopper() {
      @Override
      public void interrupt() {
        try {
          worker.send(new WorkerProtocol.Interrupt(sid, limits.interruptGrace().toMillis()));
        } catch (IOException e) {
          // the worker is gone already; the cell's result says so
        }
      }

      @Override
      public void kill(String why) {
        lostBecause = "this REPL was lost earlier: " + why;
        pool.kill(worker, "a cell overran its limits and ignored its interrupt");
      }

      @Override
      public void abandon() {
        lostBecause = "this REPL was cancelled\n";
      }
    });
    running = null;
    return result;
  }

  @Override
  public void onResult(CellResult result) {
    CompletableFuture<CellResult> cell = running;
    if (cell != null) {
      cell.complete(result);
    }
  }

  @Override
  public Reply onCall(Call call) {
    try {
      return new Reply(call.callId(), bridge.call(call.name(), call.argsJson()), null);
    } catch (HostBridge.HostCallException e) {
      return new Reply(call.callId(), null, e.getMessage());
    } catch (RuntimeException e) {
      return new Reply(call.callId(), null, call.name() + " failed: " + e);
    }
  }

  @Override
  public void onRunning(boolean computing) {
    if (computing) {
      clock.resume();
    } else {
      clock.pause();
    }
  }

  @Override
  public void onLost(String why) {
    if (lostBecause == null) {
      lostBecause = why;
    }
    CompletableFuture<CellResult> cell = running;
    if (cell != null) {
      cell.complete(CellResult.lost(why, 0));
    }
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      pool.release(worker, sid);
    }
  }
}
