package arbor.jobs.bench.rlm;

import arbor.rlm.RlmContext;
import arbor.rlm.sandbox.CellResult;
import arbor.rlm.sandbox.CellStatus;
import arbor.rlm.sandbox.HostBridge;
import arbor.rlm.sandbox.Sandbox;
import arbor.rlm.sandbox.SandboxSession;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-turn latency of typical cells in Arbor's sandbox against the same cells in a plain CPython 3
 * REPL with pure-Python versions of the tools, same inputs, same run, both timed from Java around
 * one request and its reply.
 */
public final class ReplLatencyBench {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A search over the whole context. */
  public static final String SEARCH = "hits = search(context, 'neural network', 300)";
  /** A typical turn: the search, list manipulation, and an extract_section. */
  public static final String TURN = SEARCH + "\n"
      + "long = sorted([h for h in hits if len(h) > 100], key=len)[:5]\n"
      + "words = sum(len(h.split()) for h in long)\n"
      + "span = extract_section(long[0], ' '.join(long[0].split()[:3]), ' '.join(long[0].split()[-2:])) if long else ''\n"
      + "print(len(hits), words, len(span))";

  private ReplLatencyBench() {}

  /** Latencies in milliseconds, sorted. */
  public record Latencies(double[] millis) {
    public double p50() {
      return millis[(millis.length - 1) / 2];
    }

    public double p99() {
      return millis[Math.min(millis.length - 1, (int) Math.ceil(millis.length * 0.99) - 1)];
    }
  }

  /**
   * @param arborOpen opening a REPL over the context in the sandbox (and closing it)
   * @param cpythonContext handing the same context to the CPython REPL (its JSON parsed, bound)
   */
  public record Result(int contextChars, Latencies arborTurn, Latencies cpythonTurn, Latencies arborSearch,
      Latencies cpythonSearch, Latencies arborOpen, Latencies cpythonContext) {}

  /** The first {@code papers} QASPER papers, by id, as a multi-paper context. */
  public static RlmContext.Papers context(Path qasperDir, int papers) throws IOException {
    Map<String, String> map = new LinkedHashMap<>();
    try (var files = Files.list(qasperDir.resolve("papers"))) {
      for (Path p : files.sorted().limit(papers).toList()) {
        map.put(p.getFileName().toString().replace(".txt", ""), Files.readString(p));
      }
    }
    return new RlmContext.Papers(map);
  }

  /**
   * @param warmup turns run on both sides before measuring: a long-running executor's sandbox
   *     has its tools compiled by the JIT, a fresh worker's first turns do not
   */
  public static Result run(RlmContext.Papers context, Sandbox sandbox, String python, int warmup, int reps)
      throws IOException {
    int chars = context.byId().values().stream().mapToInt(String::length).sum();
    try (SandboxSession arbor = sandbox.open(context.toJson(), HostBridge.NONE);
        CPython cpython = new CPython(python, context)) {
      for (int i = 0; i < warmup; i++) {
        check(arbor.execute(TURN));
        cpython.exec(TURN);
      }
      double[][] t = new double[4][reps];
      for (int i = 0; i < reps; i++) {
        long t0 = System.nanoTime();
        check(arbor.execute(TURN));
        long t1 = System.nanoTime();
        cpython.exec(TURN);
        long t2 = System.nanoTime();
        check(arbor.execute(SEARCH));
        long t3 = System.nanoTime();
        cpython.exec(SEARCH);
        long t4 = System.nanoTime();
        t[0][i] = (t1 - t0) / 1e6;
        t[1][i] = (t2 - t1) / 1e6;
        t[2][i] = (t3 - t2) / 1e6;
        t[3][i] = (t4 - t3) / 1e6;
      }
      // A full batch opens hundreds of REPLs: what one costs, against the least a Python REPL
      // can do to get the context (parse its JSON and bind it).
      String json = context.toJson();
      double[][] o = new double[2][reps];
      for (int i = -Math.min(warmup, 10); i < reps; i++) {
        long t0 = System.nanoTime();
        sandbox.open(json, HostBridge.NONE).close();
        long t1 = System.nanoTime();
        cpython.load(context);
        long t2 = System.nanoTime();
        if (i >= 0) {
          o[0][i] = (t1 - t0) / 1e6;
          o[1][i] = (t2 - t1) / 1e6;
        }
      }
      for (double[][] rows : List.of(t, o)) {
        for (double[] row : rows) {
          Arrays.sort(row);
        }
      }
      return new Result(chars, new Latencies(t[0]), new Latencies(t[1]), new Latencies(t[2]), new Latencies(t[3]),
          new Latencies(o[0]), new Latencies(o[1]));
    }
  }

  private static void check(CellResult r) {
    if (r.status() != CellStatus.COMPLETED) {
      throw new IllegalStateException("bench cell failed in the sandbox: " + r.stderr());
    }
  }

  /** A CPython 3 REPL process running {@code cpython_repl.py}; owns the process. */
  private static final class CPython implements AutoCloseable {
    private final Process process;
    private final BufferedWriter in;
    private final BufferedReader out;

    CPython(String python, RlmContext.Papers context) throws IOException {
      Path script = Files.createTempFile("arbor-cpython-repl", ".py");
      try (InputStream src = ReplLatencyBench.class.getClassLoader()
          .getResourceAsStream("arbor/jobs/bench/rlm/cpython_repl.py")) {
        if (src == null) {
          throw new IOException("cpython_repl.py is missing from the classpath");
        }
        Files.write(script, src.readAllBytes());
      }
      script.toFile().deleteOnExit();
      process = new ProcessBuilder(python, script.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      in = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
      out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      load(context);
    }

    void load(RlmContext.Papers context) throws IOException {
      request(Map.of("context", context.byId()));
    }

    void exec(String code) throws IOException {
      JsonNode reply = request(Map.of("code", code));
      if (reply.has("error")) {
        throw new IOException("bench cell failed in CPython: " + reply.get("error").asText());
      }
    }

    private JsonNode request(Object message) throws IOException {
      in.write(JSON.writeValueAsString(message));
      in.write('\n');
      in.flush();
      String line = out.readLine();
      if (line == null) {
        throw new IOException("the CPython REPL exited");
      }
      return JSON.readTree(line);
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }

  /** Names and values for a BENCH line. */
  public static Map<String, Object> figures(Result r) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("context_chars", r.contextChars());
    f.put("arbor_turn_p50_ms", round(r.arborTurn().p50()));
    f.put("arbor_turn_p99_ms", round(r.arborTurn().p99()));
    f.put("cpython_turn_p50_ms", round(r.cpythonTurn().p50()));
    f.put("cpython_turn_p99_ms", round(r.cpythonTurn().p99()));
    f.put("arbor_search_p50_ms", round(r.arborSearch().p50()));
    f.put("cpython_search_p50_ms", round(r.cpythonSearch().p50()));
    f.put("turn_p50_ratio_vs_cpython", round(r.arborTurn().p50() / r.cpythonTurn().p50()));
    f.put("turn_p99_ratio_vs_cpython", round(r.arborTurn().p99() / r.cpythonTurn().p99()));
    f.put("search_ratio_vs_cpython", round(r.arborSearch().p50() / r.cpythonSearch().p50()));
    f.put("arbor_open_p50_ms", round(r.arborOpen().p50()));
    f.put("cpython_context_p50_ms", round(r.cpythonContext().p50()));
    f.put("open_p50_ratio_vs_cpython", round(r.arborOpen().p50() / r.cpythonContext().p50()));
    return f;
  }

  private static double round(double x) {
    return Math.round(x * 100) / 100.0;
  }

  static List<String> cells() {
    return List.of(SEARCH, TURN);
  }
}
