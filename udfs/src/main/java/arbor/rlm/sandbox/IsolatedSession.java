package arbor.rlm.sandbox;

import arbor.rlm.sandbox.WorkerProtocol.Call;
import arbor.rlm.sandbox.WorkerProtocol.Reply;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The host side of one REPL that lives in a sandbox worker process. It records every cell it ran
 * with the answers its host calls got, so that when the worker is lost to something this REPL did
 * not do (another REPL's runaway cell, a crash, a worker that stopped answering), the REPL is
 * restored in a fresh worker by running those cells again with the recorded answers: the
 * variables come back, and no child or completion runs twice. A cell that was running when the
 * worker went is run again the same way; a host call it was waiting for is still awaited, not
 * repeated. A REPL that cannot be restored (its history was interrupted or is too long to replay,
 * a replayed cell did something else than the first time, no worker would start) is lost.
 */
final class IsolatedSession implements SandboxSession, WorkerProcess.Listener {
  private final WorkerPool pool;
  private final long sid;
  private final String contextJson;
  /** The REPL's reserved {@code question}, or null: opened with it again on a restore. */
  private final String question;
  private final HostBridge bridge;
  private final SandboxLimits limits;
  private final CellClock clock = new CellClock();
  /** A replayed cell's computing time: its wait for a CPU slot behind other REPLs is free. */
  private final CellClock replayClock = new CellClock();
  private final List<Cell> history = new ArrayList<>();
  private volatile WorkerProcess worker;
  private volatile CompletableFuture<CellResult> running;
  /** The cell whose host calls the worker is making now: the running one, or one being replayed. */
  private volatile Cell calling;
  /** Where a replayed cell's result goes while the REPL is being restored. */
  private volatile CompletableFuture<CellResult> replaying;
  /** Completes when a restore that is under way ends (true: restored). */
  private volatile CompletableFuture<Boolean> restoring = CompletableFuture.completedFuture(true);
  /** A cancelled cell still running in the worker: the REPL's slot is freed when it ends. */
  private volatile CompletableFuture<CellResult> abandoned;
  /** The worker a restore was replaying into was lost as well: the restore starts over. */
  private volatile boolean restoreTargetLost;
  private volatile String lostBecause;
  private volatile String unrestorable;
  private long historyActiveMillis;
  private boolean closed;

  /** One executed cell, and the outcome of each host call it made, in order. */
  private static final class Cell {
    final String code;
    final List<String> callKeys = new ArrayList<>();
    final List<CompletableFuture<Reply>> replies = new ArrayList<>();
    CellStatus status;
    List<String> variables;
    int cursor;
    /** The worker cleared the REPL after this cell: the cell is not part of its state. */
    volatile boolean resetAfter;

    Cell(String code) {
      this.code = code;
    }
  }

  IsolatedSession(WorkerPool pool, WorkerProcess worker, long sid, String contextJson, String question,
      HostBridge bridge, SandboxLimits limits) {
    this.pool = pool;
    this.worker = worker;
    this.sid = sid;
    this.contextJson = contextJson;
    this.question = question;
    this.bridge = bridge;
    this.limits = limits;
  }

  @Override
  public CellResult execute(String code) {
    // A restore after a loss between cells must finish before the next cell can run.
    restoring.join();
    if (lostBecause != null) {
      return CellResult.lost(lostBecause, 0);
    }
    Cell cell = new Cell(code);
    CompletableFuture<CellResult> result = new CompletableFuture<>();
    synchronized (this) {
      calling = cell;
      running = result;
    }
    clock.startPaused();
    try {
      worker.send(new WorkerProtocol.Exec(sid, code));
    } catch (IOException e) {
      // The worker is going; its reader reports the loss and the restore runs the cell again.
    }
    CellResult r = CellWatch.await(result, clock, limits, new CellWatch.Stopper() {
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
        pool.retire(worker, "a cell overran its limits and ignored its interrupt");
      }

      @Override
      public void abandon() {
        lostBecause = "this REPL was cancelled\n";
        abandoned = result;
        // The cell may be a built-in that ignores interrupts: past its grace it costs its worker.
        pool.watchAbandoned(IsolatedSession.this, result);
      }
    });
    synchronized (this) {
      running = null;
      calling = null;
      cell.status = r.status();
      cell.variables = r.variables();
      if (r.status() == CellStatus.TIMED_OUT) {
        unrestorable = "a cell of it was interrupted, so its state cannot be rebuilt exactly";
      }
      if (!r.status().replGone() && !cell.resetAfter) {
        history.add(cell);
        historyActiveMillis += r.activeMillis();
      }
    }
    return r;
  }

  WorkerProcess worker() {
    return worker;
  }

  long sid() {
    return sid;
  }

  @Override
  public void onResult(CellResult result, boolean reset) {
    if (reset) {
      // The worker cleared the REPL: as fresh, so nothing before this point needs replaying.
      synchronized (this) {
        history.clear();
        historyActiveMillis = 0;
        unrestorable = null;
        Cell cell = calling;
        if (cell != null) {
          cell.resetAfter = true;
        }
      }
    }
    CompletableFuture<CellResult> target = replaying != null ? replaying : running;
    if (target == null) {
      target = abandoned;
    }
    if (target != null) {
      target.complete(result);
    }
  }

  @Override
  public Reply onCall(Call call) {
    Cell cell = calling;
    if (cell == null) {
      return new Reply(call.callId(), null, "the REPL that called is not running a cell");
    }
    String key = call.name() + " " + call.argsJson();
    CompletableFuture<Reply> outcome;
    boolean live;
    synchronized (this) {
      int k = cell.cursor++;
      if (k < cell.replies.size()) {
        // Replaying: the same call must come again, and gets the answer it got the first time.
        if (!cell.callKeys.get(k).equals(key)) {
          diverged("a replayed cell made a different host call (" + call.name() + ") than the first time");
          return new Reply(call.callId(), null, "the REPL could not be restored");
        }
        outcome = cell.replies.get(k);
        live = false;
      } else {
        outcome = new CompletableFuture<>();
        cell.callKeys.add(key);
        cell.replies.add(outcome);
        live = true;
      }
    }
    if (live) {
      outcome.complete(answer(call));
    }
    // A call still in flight from before the loss is awaited here, not repeated.
    Reply got = outcome.join();
    return new Reply(call.callId(), got.valueJson(), got.error());
  }

  private Reply answer(Call call) {
    boolean lend = call.name().startsWith("rlm_query");
    // A parent waiting for its children lends them its REPL slot, so it never starves them.
    if (lend) {
      pool.lend();
    }
    try {
      return new Reply(call.callId(), bridge.call(call.name(), call.argsJson()), null);
    } catch (HostBridge.HostCallException e) {
      return new Reply(call.callId(), null, e.getMessage());
    } catch (RuntimeException e) {
      return new Reply(call.callId(), null, call.name() + " failed: " + e);
    } finally {
      if (lend) {
        pool.reclaim();
      }
    }
  }

  @Override
  public void onRunning(boolean computing) {
    // A replayed earlier cell's time was spent and counted the first time: it runs on its own clock.
    CellClock c = replaying != null ? replayClock : clock;
    if (computing) {
      c.resume();
    } else {
      c.pause();
    }
  }

  @Override
  public void onLost(WorkerProcess lost, String why) {
    String reason;
    synchronized (this) {
      if (lost != worker) {
        return; // a worker this REPL had left already (a restore moved it on)
      }
      if (closed || lostBecause != null) {
        failRunning(lostBecause != null ? lostBecause : why);
        return;
      }
      if (!restoring.isDone()) {
        // The fresh worker went too (another runaway's kill, say): the restore under way starts
        // over in the next one.
        restoreTargetLost = true;
        CompletableFuture<CellResult> replay = replaying;
        if (replay != null) {
          replay.complete(CellResult.lost(why, 0));
        }
        return;
      }
      reason = restoreRefusal();
      if (reason == null) {
        restoring = new CompletableFuture<>();
        // The time until the cell runs again on the fresh worker is not the cell's.
        clock.startPaused();
      }
    }
    if (reason != null) {
      lose(why.strip() + "; it could not be restored: " + reason + ".\n");
      return;
    }
    Thread.ofVirtual().name("arbor-restore-" + sid).start(() -> restore(why));
  }

  private String restoreRefusal() {
    if (pool.restoreBudget().isZero()) {
      return "restoring REPLs is switched off (sandbox.restore_max_active = 0)";
    }
    if (unrestorable != null) {
      return unrestorable;
    }
    if (historyActiveMillis > pool.restoreBudget().toMillis()) {
      return "its cells computed for " + historyActiveMillis / 1000 + " s, more than "
          + pool.restoreBudget().toSeconds() + " s may be replayed";
    }
    return null;
  }

  /** Restores tried in a row when each fresh worker is lost in turn during the restore. */
  private static final int RESTORE_ATTEMPTS = 3;

  /**
   * Opens the REPL again in a fresh worker and replays its history, then the running cell; starts
   * over in another worker when that one is lost during the restore.
   */
  private void restore(String why) {
    boolean ok = false;
    String failure = "";
    try {
      for (int attempt = 1; attempt <= RESTORE_ATTEMPTS && lostBecause == null; attempt++) {
        restoreTargetLost = false;
        try {
          ok = restoreOnce();
          if (ok) {
            return;
          }
          failure = "each fresh worker was lost too while the REPL was being restored (" + attempt + " tried)";
        } catch (IOException | RuntimeException e) {
          failure = e.getMessage();
        }
      }
      if (lostBecause == null) {
        // Not lost by a diverging replay, which says why itself: every worker tried was lost.
        lose(why.strip() + "; it could not be restored: " + failure + ".\n");
      }
    } finally {
      restoring.complete(ok);
    }
  }

  /** One restore into a fresh worker: false when a replay diverged or the worker was lost. */
  private boolean restoreOnce() throws IOException {
    WorkerProcess fresh = pool.reopen(this, contextJson, question);
    worker = fresh;
    List<Cell> cells;
    synchronized (this) {
      cells = List.copyOf(history);
    }
    for (Cell cell : cells) {
      if (!replay(fresh, cell)) {
        return false;
      }
    }
    Cell current;
    synchronized (this) {
      if (lostBecause != null || restoreTargetLost) {
        return false;
      }
      current = running != null ? calling : null;
      if (current != null) {
        current.cursor = 0;
        calling = current;
      }
    }
    if (current != null) {
      // The interrupted cell starts over on the fresh worker; its clock starts over with it.
      clock.startPaused();
      fresh.send(new WorkerProtocol.Exec(sid, current.code));
    }
    return true;
  }

  /** Runs one recorded cell again; false (and the REPL lost) when it did not end as before. */
  private boolean replay(WorkerProcess fresh, Cell cell) throws IOException {
    CompletableFuture<CellResult> result = new CompletableFuture<>();
    Cell interrupted;
    synchronized (this) {
      interrupted = running != null ? calling : null;
      cell.cursor = 0;
      calling = cell;
      replaying = result;
    }
    try {
      replayClock.startPaused();
      fresh.send(new WorkerProtocol.Exec(sid, cell.code));
      // A restore storm (every REPL of a killed worker at once) queues its replays behind a few CPU
      // slots: only their computing time is limited, and a worker lost meanwhile ends the wait.
      long limit = limits.cellWallTime().plus(limits.interruptGrace()).toNanos();
      CellResult r;
      while (true) {
        try {
          r = result.get(200, TimeUnit.MILLISECONDS);
          if (restoreTargetLost) {
            return false;
          }
          break;
        } catch (java.util.concurrent.TimeoutException e) {
          if (!fresh.alive()) {
            // Lost before this REPL had moved to it, so no loss was reported here.
            restoreTargetLost = true;
            return false;
          }
          if (replayClock.activeNanos() > limit) {
            fresh.send(new WorkerProtocol.Interrupt(sid, limits.interruptGrace().toMillis()));
            diverged("a replayed cell computed for longer than the cell limit, unlike the first time");
            return false;
          }
        }
      }
      if (r.status() != cell.status || !r.variables().equals(cell.variables)) {
        diverged("a replayed cell ended differently (" + r.status() + ") than the first time (" + cell.status + ")");
        return false;
      }
      return lostBecause == null;
    } catch (java.util.concurrent.ExecutionException e) {
      diverged("a replayed cell failed: " + e.getCause());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      diverged("interrupted while replaying");
      return false;
    } finally {
      synchronized (this) {
        replaying = null;
        calling = interrupted;
      }
    }
  }

  private void diverged(String why) {
    lose("SandboxError: this REPL's worker was lost and the REPL could not be restored: " + why
        + "; the REPL state is lost.\n");
  }

  private void lose(String why) {
    synchronized (this) {
      if (lostBecause == null) {
        lostBecause = why;
      }
    }
    failRunning(why);
  }

  private void failRunning(String why) {
    CompletableFuture<CellResult> cell = running;
    if (cell != null) {
      cell.complete(CellResult.lost(why, 0));
    }
    CompletableFuture<CellResult> replay = replaying;
    if (replay != null) {
      replay.complete(CellResult.lost(why, 0));
    }
    CompletableFuture<CellResult> gone = abandoned;
    if (gone != null) {
      gone.complete(CellResult.lost(why, 0));
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    restoring.join();
    CompletableFuture<CellResult> gone = abandoned;
    if (gone != null && !gone.isDone()) {
      // Closing the REPL under a running cell would block the worker; free it once the cell ends.
      WorkerProcess w = worker;
      gone.whenComplete((r, e) -> pool.release(w, sid));
      return;
    }
    pool.release(worker, sid);
  }
}
