package arbor.rlm.sandbox;

import arbor.rlm.sandbox.WorkerProtocol.Call;
import arbor.rlm.sandbox.WorkerProtocol.Message;
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
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The host's handle on one sandbox worker process: owns the process, writes requests to it, and
 * reads its replies on one virtual thread. When the process ends, for whatever reason, every
 * REPL it hosted is told so and the pool replaces it.
 */
final class WorkerProcess implements AutoCloseable {
  /** What the host side of a REPL hears from its worker. */
  interface Listener {
    /** @param reset the worker cleared the REPL's variables after the cell (it kept too much) */
    void onResult(CellResult result, boolean reset);

    /** A host callback made by the running cell; returns the reply to send back. */
    Reply onCall(Call call);

    void onLost(WorkerProcess lost, String why);

    /** The cell got a CPU slot ({@code true}) or gave it back to wait for the host. */
    void onRunning(boolean running);
  }

  private final int index;
  private final Process process;
  private final DataOutputStream out;
  private final Map<Long, Listener> listeners = new ConcurrentHashMap<>();
  private final Map<Long, CompletableFuture<String>> opening = new ConcurrentHashMap<>();
  private final CompletableFuture<Long> ready = new CompletableFuture<>();
  private volatile String deathReason;
  /** When the worker last sent anything (each message shows it works). */
  private volatile long lastSignOfLife = System.nanoTime();
  private final java.util.concurrent.atomic.AtomicBoolean pinging = new java.util.concurrent.atomic.AtomicBoolean();

  private WorkerProcess(int index, Process process) {
    this.index = index;
    this.process = process;
    this.out = new DataOutputStream(new BufferedOutputStream(process.getOutputStream()));
  }

  static WorkerProcess start(int index, WorkerPoolConfig config) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(command(config));
    if (config.logDir() != null) {
      java.nio.file.Files.createDirectories(config.logDir());
      builder.redirectError(config.logDir().resolve("sandbox-worker-" + index + ".log").toFile());
    } else {
      builder.redirectError(ProcessBuilder.Redirect.DISCARD);
    }
    WorkerProcess worker = new WorkerProcess(index, builder.start());
    Thread.ofVirtual().name("arbor-worker-reader-" + index).start(worker::readLoop);
    try {
      worker.ready.get(config.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      worker.kill("did not start within " + config.startTimeout());
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IOException("sandbox worker " + index + " did not start: " + e
          + (config.logDir() == null ? "" : "; see " + config.logDir()), e);
    }
    worker.lastSignOfLife = System.nanoTime();
    Thread.ofVirtual().name("arbor-worker-heartbeat-" + index).start(() -> worker.watch(config));
    return worker;
  }

  /**
   * The heartbeat: a worker that stops answering (stopped, swapping, stuck in garbage collection)
   * is killed, so its REPLs are restored elsewhere. Its own clock, not any cell's: a hung worker
   * whose cells all wait would otherwise never be noticed. Any message from the worker counts as
   * an answer: when a full batch opens its REPLs, a ping waits behind megabytes of contexts in
   * the worker's input, and the worker, busy reading them, says so at the heartbeat's pace.
   */
  private void watch(WorkerPoolConfig config) {
    long timeout = config.heartbeatTimeout().toNanos();
    long seq = 0;
    while (alive()) {
      try {
        Thread.sleep(config.heartbeatInterval());
      } catch (InterruptedException e) {
        return;
      }
      if (System.nanoTime() - lastSignOfLife > timeout) {
        kill("the sandbox worker stopped answering for " + config.heartbeatTimeout().toMillis() / 1000.0
            + " s (no heartbeat)");
        return;
      }
      // Sent apart from the check: a worker that reads nothing can block a write, never the check.
      if (pinging.compareAndSet(false, true)) {
        long n = ++seq;
        Thread.ofVirtual().start(() -> {
          try {
            send(new Ping(n));
          } catch (IOException e) {
            // the reader notices the death
          } finally {
            pinging.set(false);
          }
        });
      }
    }
  }

  /** The same JDK, classpath and module flags as this JVM, plus the pool's own options. */
  static List<String> command(WorkerPoolConfig config) {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command()
        .orElse(System.getProperty("java.home") + "/bin/java"));
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens=") || arg.startsWith("--add-exports=")
          || arg.startsWith("--enable-native-access=")
          || arg.startsWith("--sun-misc-unsafe-memory-access=")
          || arg.equals("-XX:+IgnoreUnrecognizedVMOptions")) {
        cmd.add(arg);
      }
    }
    cmd.add("-Xmx" + config.workerHeapMb() + "m");
    // A small heap, few threads: serial GC fits a worker on a busy executor.
    cmd.add("-XX:+UseSerialGC");
    if (config.resourceCache() != null) {
      cmd.add("-Dpolyglot.engine.userResourceCache=" + config.resourceCache().toAbsolutePath());
    }
    cmd.addAll(config.jvmOptions());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(WorkerMain.class.getName());
    cmd.add(String.valueOf(config.cellsPerWorker()));
    cmd.add(String.valueOf(config.replHeapMb()));
    cmd.add(String.valueOf(config.heartbeatInterval().toMillis()));
    return cmd;
  }

  long pid() {
    return process.pid();
  }

  int index() {
    return index;
  }

  boolean alive() {
    return deathReason == null && process.isAlive();
  }

  int sessions() {
    return listeners.size();
  }

  /**
   * Opens a REPL with id {@code sid} in this worker; returns null or the reason it failed. Waits
   * as long as the worker lives (its heartbeat decides): in a full batch, opens queue in the
   * worker for minutes, and a queue is not a failure.
   */
  String open(long sid, String contextJson, String question, int maxOutputChars, Listener listener) {
    CompletableFuture<String> opened = new CompletableFuture<>();
    opening.put(sid, opened);
    listeners.put(sid, listener);
    try {
      send(new WorkerProtocol.Open(sid, contextJson, question, maxOutputChars));
      String error = opened.get();
      if (error != null) {
        listeners.remove(sid);
      }
      return error;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      listeners.remove(sid);
      return "interrupted while opening a REPL";
    } catch (ExecutionException | IOException e) {
      listeners.remove(sid);
      return "could not open a REPL in sandbox worker " + index + ": " + e;
    } finally {
      opening.remove(sid);
    }
  }

  void forget(long sid) {
    if (listeners.remove(sid) != null && alive()) {
      try {
        send(new WorkerProtocol.Close(sid));
      } catch (IOException e) {
        // the worker is dying; its REPLs go with it
      }
    }
  }

  void send(Message message) throws IOException {
    WorkerProtocol.write(out, message);
  }

  /** Kills the process; its REPLs learn {@code why} through {@link Listener#onLost}. */
  void kill(String why) {
    if (deathReason == null) {
      deathReason = why;
    }
    process.destroyForcibly();
  }

  void awaitExit() {
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    kill("the sandbox pool was closed");
    awaitExit();
  }

  private void readLoop() {
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(process.getInputStream()))) {
      Message message;
      while ((message = WorkerProtocol.read(in)) != null) {
        lastSignOfLife = System.nanoTime();
        dispatch(message);
      }
    } catch (IOException | RuntimeException e) {
      if (deathReason == null) {
        deathReason = "protocol error: " + e;
      }
    }
    process.destroyForcibly();
    String why = deathReason;
    if (why == null) {
      int code = waitForExit();
      why = "the sandbox worker process exited unexpectedly (exit code " + code + ")";
    }
    ready.completeExceptionally(new IOException(why));
    String died = "sandbox worker " + index + " died: " + why;
    opening.values().forEach(f -> f.complete(died));
    String note = "SandboxError: " + why + "; the REPL state is lost.\n";
    for (Listener listener : listeners.values()) {
      listener.onLost(this, note);
    }
    listeners.clear();
  }

  private int waitForExit() {
    try {
      return process.waitFor(5, TimeUnit.SECONDS) ? process.exitValue() : -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private void dispatch(Message message) {
    switch (message) {
      case Ready r -> ready.complete(r.pid());
      case Pong p -> {
        // already counted as a sign of life
      }
      case Opened o -> {
        CompletableFuture<String> f = opening.get(o.sid());
        if (f != null) {
          f.complete(o.error());
        }
      }
      case Result r -> {
        Listener listener = listeners.get(r.sid());
        if (listener != null) {
          listener.onResult(r.result(), r.reset());
        }
      }
      case Running r -> {
        Listener listener = listeners.get(r.sid());
        if (listener != null) {
          listener.onRunning(r.running());
        }
      }
      case Call c -> Thread.ofVirtual().name("arbor-host-call-" + c.callId()).start(() -> {
        Listener listener = listeners.get(c.sid());
        Reply reply = listener == null
            ? new Reply(c.callId(), null, "the REPL that called is gone")
            : listener.onCall(c);
        try {
          send(reply);
        } catch (IOException e) {
          // the worker died while the host answered; its REPLs are told by readLoop
        }
      });
      default -> throw new IllegalStateException("unexpected message from worker: " + message);
    }
  }
}
