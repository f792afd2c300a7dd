package arbor.rlm.sandbox;

import arbor.rlm.sandbox.WorkerProtocol.Call;
import arbor.rlm.sandbox.WorkerProtocol.Close;
import arbor.rlm.sandbox.WorkerProtocol.Exec;
import arbor.rlm.sandbox.WorkerProtocol.Interrupt;
import arbor.rlm.sandbox.WorkerProtocol.Message;
import arbor.rlm.sandbox.WorkerProtocol.Open;
import arbor.rlm.sandbox.WorkerProtocol.Opened;
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
  private final Engine engine = PythonEngine.shared();
  private final Map<Long, PythonSession> sessions = new ConcurrentHashMap<>();
  private final Map<Long, CompletableFuture<Reply>> calls = new ConcurrentHashMap<>();
  private final AtomicLong callIds = new AtomicLong();
  // One platform thread per running cell: a cell blocks its thread until it ends.
  private final ExecutorService threads = Executors.newCachedThreadPool(
      Thread.ofPlatform().daemon().name("arbor-worker-", 0).factory());

  private WorkerMain(DataOutputStream out, int cellSlots) {
    this.out = out;
    this.slots = new CpuSlots(cellSlots);
  }

  public static void main(String[] args) throws IOException {
    // stdout carries the protocol; anything else printed goes to stderr (the worker log).
    DataOutputStream protocol = new DataOutputStream(
        new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)));
    System.setOut(System.err);
    ProcessHandle.current().parent().ifPresent(
        parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
    int cellSlots = args.length > 0 ? Integer.parseInt(args[0]) : Runtime.getRuntime().availableProcessors();
    new WorkerMain(protocol, cellSlots).serve(new DataInputStream(new BufferedInputStream(System.in)));
    Runtime.getRuntime().halt(0);
  }

  private void serve(DataInputStream in) throws IOException {
    // Pay for the engine and the prelude before saying ready, not in the first node's first cell.
    PythonSession.open(engine, "\"\"", HostBridge.NONE, 100).close();
    send(new Ready(ProcessHandle.current().pid()));
    Message message;
    while ((message = WorkerProtocol.read(in)) != null) {
      switch (message) {
        case Open open -> threads.execute(() -> open(open));
        case Exec exec -> threads.execute(() -> exec(exec));
        case Interrupt interrupt -> threads.execute(() -> interrupt(interrupt));
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
    try {
      sessions.put(open.sid(), PythonSession.open(engine, open.contextJson(),
          (name, args) -> callHost(open.sid(), name, args), open.maxOutputChars()));
    } catch (RuntimeException e) {
      error = "could not open a REPL: " + e.getMessage();
    }
    send(new Opened(open.sid(), error));
  }

  private void exec(Exec exec) {
    PythonSession session = sessions.get(exec.sid());
    if (session == null) {
      send(new Result(exec.sid(), CellResult.lost("no REPL " + exec.sid() + " in this worker\n", 0)));
      return;
    }
    CellResult result;
    slots.acquire();
    send(new Running(exec.sid(), true));
    try {
      result = session.run(exec.code());
    } finally {
      slots.release();
    }
    send(new Result(exec.sid(), result));
  }

  private void interrupt(Interrupt interrupt) {
    PythonSession session = sessions.get(interrupt.sid());
    if (session != null) {
      try {
        session.interrupt(Duration.ofMillis(interrupt.graceMillis()));
      } catch (TimeoutException e) {
        // the host kills this worker when the cell does not stop
      }
    }
  }

  private String callHost(long sid, String name, String argsJson) throws HostBridge.HostCallException {
    long id = callIds.incrementAndGet();
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    calls.put(id, reply);
    // Waiting for the host (a child may take minutes) holds no CPU slot and stops the clock.
    slots.release();
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
      slots.acquire();
      send(new Running(sid, true));
    }
  }

  private void send(Message message) {
    try {
      WorkerProtocol.write(out, message);
    } catch (IOException e) {
      // The host is gone: nothing left to serve.
      Runtime.getRuntime().halt(4);
    }
  }
}
