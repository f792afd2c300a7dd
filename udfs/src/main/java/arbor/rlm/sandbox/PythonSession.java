package arbor.rlm.sandbox;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.EnvironmentAccess;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.PolyglotAccess;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.io.IOAccess;
import org.graalvm.polyglot.proxy.ProxyExecutable;

/**
 * One RLM node's REPL: a GraalPy context with no host, file, network, process, thread, native
 * or environment access, the built-ins of method.md section 2, and its own stdout and stderr.
 * It owns its context; {@link #close()} ends it. It enforces no time limit itself: whoever runs
 * it ({@link InProcessSandbox}, or the worker process) interrupts it.
 *
 * <p>Not thread-safe: one cell at a time, which is how a node uses its REPL.
 */
public final class PythonSession implements AutoCloseable {
  /** The pure modules model code may import (method.md section 2). */
  public static final List<String> ALLOWED_MODULES = List.of("re", "json", "math", "collections",
      "itertools", "functools", "string", "textwrap", "difflib", "statistics", "heapq", "bisect");

  private static final Source PRELUDE = loadPrelude();

  private final Context context;
  private final Value run;
  private final Value restore;
  private final Value footprint;
  private final Value reset;
  private final CappedOutput out;
  private final CappedOutput err;

  private PythonSession(Context context, Value fns, CappedOutput out, CappedOutput err) {
    this.context = context;
    this.run = fns.getArrayElement(0);
    this.restore = fns.getArrayElement(1);
    this.footprint = fns.getArrayElement(2);
    this.reset = fns.getArrayElement(3);
    this.out = out;
    this.err = err;
  }

  /**
   * Opens a REPL whose {@code context} is the JSON value {@code contextJson} (a str or a dict of
   * paper id to text), and whose reserved {@code question} is {@code question}, or unbound when
   * it is null.
   */
  public static PythonSession open(Engine engine, String contextJson, String question, HostBridge bridge,
      int maxOutputChars) {
    CappedOutput out = new CappedOutput(maxOutputChars);
    CappedOutput err = new CappedOutput(maxOutputChars);
    Context context = Context.newBuilder("python")
        .engine(engine)
        .allowHostAccess(HostAccess.NONE)
        .allowHostClassLookup(name -> false)
        .allowIO(IOAccess.NONE)
        .allowCreateThread(false)
        .allowCreateProcess(false)
        .allowNativeAccess(false)
        .allowEnvironmentAccess(EnvironmentAccess.NONE)
        .allowPolyglotAccess(PolyglotAccess.NONE)
        .out(out)
        .err(err)
        .build();
    try {
      context.eval(PRELUDE);
      Value install = context.getBindings("python").getMember("__arbor_install");
      context.getBindings("python").removeMember("__arbor_install");
      Value fns = install.execute(new HostCallProxy(bridge), new PaperToolBridge(contextJson), contextJson,
          String.join(",", ALLOWED_MODULES), question);
      out.take();
      err.take();
      return new PythonSession(context, fns, out, err);
    } catch (RuntimeException e) {
      context.close(true);
      throw e;
    }
  }

  /** Runs one cell; model errors come back as data, never as exceptions. */
  public CellResult run(String code) {
    long t0 = System.nanoTime();
    CellStatus status;
    String finalJson = null;
    List<String> variables = List.of();
    String note = null;
    try {
      Value result = run.execute(code);
      status = result.getArrayElement(0).asBoolean() ? CellStatus.RAISED : CellStatus.COMPLETED;
      Value fin = result.getArrayElement(1);
      finalJson = fin.isNull() ? null : fin.asString();
      Value names = result.getArrayElement(2);
      variables = new ArrayList<>((int) names.getArraySize());
      for (long i = 0; i < names.getArraySize(); i++) {
        variables.add(names.getArrayElement(i).asString());
      }
    } catch (PolyglotException e) {
      if (e.isInterrupted()) {
        status = CellStatus.TIMED_OUT;
      } else if (e.isCancelled()) {
        status = CellStatus.SANDBOX_LOST;
        note = "the sandbox was closed while the cell ran";
      } else {
        // Python cannot catch what the context's restrictions throw (a SecurityException from
        // os.system, say): it passes the prelude, so the REPL is put back in order from here.
        status = CellStatus.RAISED;
        note = "SandboxError: " + e.getMessage();
        try {
          restore.execute();
        } catch (PolyglotException again) {
          note += "\nSandboxError: the REPL could not be restored: " + again.getMessage();
        }
      }
    }
    CappedOutput.Taken o = out.take();
    CappedOutput.Taken r = err.take();
    String stderr = note == null ? r.text() : r.text() + note + "\n";
    long millis = (System.nanoTime() - t0) / 1_000_000;
    return new CellResult(status, o.text(), stderr, o.droppedBytes() + r.droppedBytes(), finalJson,
        variables, millis);
  }

  /** About how many bytes the REPL's variables hold (containers estimated from a sample). */
  public long footprint() {
    try {
      return footprint.execute().asLong();
    } catch (PolyglotException e) {
      // The estimate is a safeguard; a REPL that breaks it keeps its variables (the worker's -Xmx holds).
      System.err.println("arbor: the footprint of a REPL could not be estimated: " + e.getMessage());
      return 0;
    }
  }

  /** Clears the REPL's variables: it is as freshly opened, with the same context. */
  public void reset() {
    reset.execute();
    out.take();
    err.take();
  }

  /**
   * Stops the running cell. Python loops and sleeps stop within about a second and the REPL stays
   * usable; a long-running built-in does not stop, which the timeout exception reports.
   */
  public void interrupt(Duration grace) throws TimeoutException {
    context.interrupt(grace);
  }

  @Override
  public void close() {
    context.close(true);
  }

  private static Source loadPrelude() {
    String path = "arbor/rlm/sandbox/prelude.py";
    try (Reader reader = new InputStreamReader(
        PythonSession.class.getClassLoader().getResourceAsStream(path), StandardCharsets.UTF_8)) {
      return Source.newBuilder("python", reader, "arbor_prelude.py").build();
    } catch (IOException | NullPointerException e) {
      throw new IllegalStateException("the sandbox prelude " + path + " is missing from the classpath", e);
    }
  }

  /** {@code host_call(name, args_json)}: forwards to the host bridge, returns a JSON reply. */
  private record HostCallProxy(HostBridge bridge) implements ProxyExecutable {
    @Override
    public Object execute(Value... args) {
      String name = args[0].asString();
      try {
        return "{\"value\":" + bridge.call(name, args[1].asString()) + "}";
      } catch (HostBridge.HostCallException e) {
        return Json.write(java.util.Map.of("error", e.getMessage()));
      } catch (RuntimeException e) {
        return Json.write(java.util.Map.of("error", name + " failed: " + e));
      }
    }
  }

}
