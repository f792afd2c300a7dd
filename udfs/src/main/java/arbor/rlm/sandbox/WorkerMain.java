package arbor.rlm.sandbox;

import arbor.rlm.sandbox.WorkerProtocol.Call;
import arbor.rlm.sandbox.WorkerProtocol.Close;
import arbor.rlm.sandbox.WorkerProtocol.Exec;
import arbor.rlm.sandbox.WorkerProtocol.Interrupt;
import arbor.rlm.sandbox.WorkerProtocol.Message;
import arbor.rlm.sandbox.WorkerProtocol.Open;
import arbor.rlm.sandbox.WorkerProtocol.Opened;
import arbor.rlm.sandbox.WorkerProtocol.Ping;
import arbor.rlm.sandbox.WorkerProtocol.Pong;
import arbor.rlm.sandbox.WorkerProtocol.Ready;
import arbor.rlm.sandbox.WorkerProtocol.Reply;
import arbor.rlm.sandbox.WorkerProtocol.Result;
import arbor.rlm.sandbox.WorkerProtocol.Running;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.graalvm.polyglot.Engine;

/**
 * A sandbox worker process: hosts many REPLs on one engine and serves the host over stdin and
 * stdout ({@link WorkerProtocol}). It exits when its input ends or its parent process dies, so a
 * crashed host leaves no worker behind. Started by {@link WorkerProcess}, never by hand.
 */
public final class WorkerMain {
  private final DataOutputStream out;
  private final CpuSlots slots;
  private final CpuSlots openSlots;
  private final Engine engine = PythonEngine.shared();
  private final Map<Long, PythonSession> sessions = new ConcurrentHashMap<>();
  private final Map<Long, CompletableFuture<Reply>> calls = new ConcurrentHashMap<>();
  private final AtomicLong callIds = new AtomicLong();
  private final Map<Long, SlotHold> holds = new ConcurrentHashMap<>();
  private final long replHeapBytes;
  private final long heartbeatNanos;
  private volatile long lastSent = System.nanoTime();
  // One platform thread per running cell: a cell blocks its thread until it ends. A thread demoted
  // under a runaway cell ends with it (a RetiredThread), never to run another cell at idle priority.
  private final ExecutorService threads = Executors.newCachedThreadPool(
      Thread.ofPlatform().daemon().name("arbor-worker-", 0).uncaughtExceptionHandler((t, e) -> {
        if (!(e instanceof RetiredThread)) {
          e.printStackTrace();
        }
      }).factory());

  /** Ends a cell thread that was demoted: the pool starts a fresh one instead. */
  private static final class RetiredThread extends RuntimeException {
    RetiredThread() {
      super(null, null, false, false);
    }
  }

  private WorkerMain(DataOutputStream out, int cellSlots, int replHeapMb, long heartbeatMillis) {
    this.out = out;
    this.heartbeatNanos = heartbeatMillis * 1_000_000;
    this.slots = new CpuSlots(cellSlots);
    this.openSlots = new CpuSlots(cellSlots);
    this.replHeapBytes = replHeapMb * (1L << 20);
  }

  public static void main(String[] args) throws IOException {
    // stdout carries the protocol; anything else printed goes to stderr (the worker log).
    DataOutputStream protocol = new DataOutputStream(
        new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)));
    System.setOut(System.err);
    ProcessHandle.current().parent().ifPresent(
        parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
    int cellSlots = args.length > 0 ? Integer.parseInt(args[0]) : Runtime.getRuntime().availableProcessors();
    int replHeapMb = args.length > 1 ? Integer.parseInt(args[1]) : Integer.MAX_VALUE >> 20;
    long heartbeatMillis = args.length > 2 ? Long.parseLong(args[2]) : 2_000;
    new WorkerMain(protocol, cellSlots, replHeapMb, heartbeatMillis)
        .serve(new DataInputStream(new BufferedInputStream(System.in)));
    Runtime.getRuntime().halt(0);
  }

  private void serve(DataInputStream in) throws IOException {
    // Pay for the engine and the prelude before saying ready, not in the first node's first cell.
    PythonSession.open(engine, "\"\"", null, HostBridge.NONE, 100).close();
    send(new Ready(ProcessHandle.current().pid()));
    Message message;
    while ((message = WorkerProtocol.read(in)) != null) {
      // A ping waits behind whatever came before it (a burst of opens is megabytes of contexts):
      // while there is that much to read, say at the heartbeat's pace that this worker works.
      if (System.nanoTime() - lastSent > heartbeatNanos) {
        send(new Pong(-1));
      }
      switch (message) {
        case Open open -> threads.execute(() -> open(open));
        case Exec exec -> threads.execute(() -> exec(exec));
        case Interrupt interrupt -> {
          // A cell past its limit computes no longer on a slot: the others go on at once.
          SlotHold hold = holds.get(interrupt.sid());
          if (hold != null) {
            hold.overrun();
          }
          threads.execute(() -> interrupt(interrupt));
        }
        case Ping ping -> send(new Pong(ping.seq()));
        case Close close -> threads.execute(() -> {
          PythonSession session = sessions.remove(close.sid());
          if (session != null) {
            session.close();
          }
        });
        case Reply reply -> {
          CompletableFuture<Reply> waiting = calls.remove(reply.callId());
          if (waiting != null) {
            waiting.complete(reply);
          }
        }
        default -> System.err.println("worker: unexpected message " + message);
      }
    }
  }

  private void open(Open open) {
    String error = null;
    // Opening a REPL computes (the context is parsed, the prelude runs). A full batch opens
    // hundreds at once: they queue for slots of their own, so that they neither starve the running
    // cells and this reader nor wait behind the cells for minutes.
    openSlots.acquire();
    try {
      sessions.put(open.sid(), PythonSession.open(engine, open.contextJson(), open.question(),
          (name, args) -> callHost(open.sid(), name, args), open.maxOutputChars()));
    } catch (RuntimeException e) {
      error = "could not open a REPL: " + e.getMessage();
    } finally {
      openSlots.release();
    }
    send(new Opened(open.sid(), error));
  }

  private void exec(Exec exec) {
    PythonSession session = sessions.get(exec.sid());
    if (session == null) {
      send(new Result(exec.sid(), CellResult.lost("no REPL " + exec.sid() + " in this worker\n", 0), false));
      return;
    }
    CellResult result;
    SlotHold hold = new SlotHold();
    holds.put(exec.sid(), hold);
    if (hold.acquire()) {
      send(new Running(exec.sid(), true));
    }
    try {
      // Stopped while it queued for a slot (its node was cancelled): it does not run at all, and
      // answers now, not when a slot frees up - the host gives a cancelled cell only seconds
      // before it takes it for a runaway and retires the worker.
      result = hold.overran() ? CellResult.stoppedBeforeRunning() : session.run(exec.code());
    } finally {
      hold.release();
      holds.remove(exec.sid());
    }
    boolean reset = false;
    Runtime rt = Runtime.getRuntime();
    // Only when memory is getting short is it worth asking who holds it (a sampled estimate).
    if (rt.totalMemory() - rt.freeMemory() > rt.maxMemory() / 2) {
      long kept = session.footprint();
      if (kept > replHeapBytes) {
        session.reset();
        reset = true;
        result = new CellResult(CellStatus.RAISED, result.stdout(), result.stderr() + (result.stderr().isEmpty()
            || result.stderr().endsWith("\n") ? "" : "\n") + "MemoryError: this REPL kept about " + (kept >> 20)
            + " MB after the cell, more than the " + (replHeapBytes >> 20) + " MB one REPL may keep; its "
            + "variables were cleared so that the REPLs sharing its worker keep their memory. Keep less "
            + "(slices, counts, the spans you need) and recompute what you lost.\n",
            result.droppedChars(), result.finalJson(), List.of(), result.activeMillis());
      }
    }
    send(new Result(exec.sid(), result, reset));
    if (hold.demoted) {
      throw new RetiredThread();
    }
  }

  /**
   * The CPU slot of one running cell. Given back while the cell waits for the host, and for good
   * once the cell has overrun its limit and been interrupted: a runaway keeps no slot from others.
   * A cell waits for its slot in the order it asked (a full batch queues hundreds of cells, and a
   * cell that kept losing its place would wait without bound); an overrun wakes it from the queue.
   */
  private final class SlotHold {
    /** The Linux thread that runs the cell: the one to demote should the cell ignore its interrupt. */
    final long tid = IdleThreads.currentTid();
    volatile boolean demoted;
    private boolean held;
    private boolean overran;
    private Thread waiting;

    /** Takes a slot unless the cell has overrun; true when it holds one. */
    boolean acquire() {
      synchronized (this) {
        if (overran) {
          return false;
        }
        waiting = Thread.currentThread();
      }
      boolean got = slots.acquireInterruptibly();
      synchronized (this) {
        waiting = null;
        if (overran) {
          // Woken by the overrun, or it came just after the slot did: either way no slot is kept.
          Thread.interrupted();
          if (got) {
            slots.release();
          }
          return false;
        }
        held = got;
        return got;
      }
    }

    synchronized void release() {
      if (held) {
        held = false;
        slots.release();
      }
    }

    synchronized void overrun() {
      overran = true;
      if (waiting != null) {
        waiting.interrupt();
      }
      release();
    }

    synchronized boolean overran() {
      return overran;
    }
  }

  private void interrupt(Interrupt interrupt) {
    PythonSession session = sessions.get(interrupt.sid());
    if (session != null) {
      try {
        session.interrupt(Duration.ofMillis(interrupt.graceMillis()));
      } catch (TimeoutException e) {
        // A built-in that ignores interrupts: it computes on, on idle CPU time only, while the host
        // retires this worker (no new REPLs; its others end their work here; then it is stopped).
        SlotHold hold = holds.get(interrupt.sid());
        if (hold != null) {
          hold.demoted = IdleThreads.demote(hold.tid);
          System.err.println("worker: REPL " + interrupt.sid() + "'s cell ignored its interrupt; its thread " + hold.tid
              + (hold.demoted ? " now runs at idle priority" : " could not be demoted"));
        }
      }
    }
  }

  private String callHost(long sid, String name, String argsJson) throws HostBridge.HostCallException {
    long id = callIds.incrementAndGet();
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    calls.put(id, reply);
    // Waiting for the host (a child may take minutes) holds no CPU slot and stops the clock.
    SlotHold hold = holds.get(sid);
    if (hold != null) {
      hold.release();
    }
    send(new Running(sid, false));
    send(new Call(sid, id, name, argsJson));
    try {
      Reply r = reply.get();
      if (r.error() != null) {
        throw new HostBridge.HostCallException(r.error());
      }
      return r.valueJson();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HostBridge.HostCallException(name + " was interrupted");
    } catch (ExecutionException e) {
      throw new HostBridge.HostCallException(name + " failed: " + e.getCause());
    } finally {
      calls.remove(id);
      if (hold != null && hold.acquire()) {
        send(new Running(sid, true));
      }
    }
  }

  private void send(Message message) {
    try {
      WorkerProtocol.write(out, message);
      lastSent = System.nanoTime();
    } catch (IOException e) {
      // The host is gone: nothing left to serve.
      Runtime.getRuntime().halt(4);
    }
  }
}
