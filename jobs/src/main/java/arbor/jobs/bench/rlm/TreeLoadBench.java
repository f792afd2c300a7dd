package arbor.jobs.bench.rlm;

import arbor.rlm.NodeRecord;
import arbor.rlm.NodeStatus;
import arbor.rlm.Prompts;
import arbor.rlm.RlmContext;
import arbor.rlm.RlmLimits;
import arbor.rlm.TreeRunner;
import arbor.rlm.Turn;
import arbor.rlm.policy.ExpertPolicy;
import arbor.rlm.policy.Generation;
import arbor.rlm.policy.NodePath;
import arbor.rlm.policy.Policy;
import arbor.rlm.policy.PolicyCall;
import java.util.concurrent.atomic.AtomicInteger;
import arbor.rlm.sandbox.Sandbox;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Many concurrent trees of the scripted expert: {@code queries} multi-paper questions times
 * {@code samples} rollouts each, all started at once (up to queries x samples x 5 live nodes).
 * Counts trees that completed, timeouts, cross-talk (a span that is not in the node's own
 * context), trees per second and the harness's own time per turn.
 */
public final class TreeLoadBench {

  private TreeLoadBench() {}

  /** One multi-paper query: a QASPER question over its paper and a few others. */
  public record Query(String id, String question, RlmContext.Papers papers) {}

  /**
   * @param runaways children whose first cell was made a runaway ({@code sum(range(10**13))})
   * @param killed nodes that ended {@code sandbox_error}: their own cell ran away
   * @param collateralLosses nodes that ended {@code sandbox_lost}: their REPL was lost to another
   *     node's cell (or a worker's death) and could not be restored
   * @param peakLiveNodes the most nodes (each with its REPL) running at one moment
   * @param lossReasons why the collateral losses lost their REPL (the line of the last observation
   *     that says so, numbers blanked), with how many nodes each
   */
  public record Result(int trees, int completed, int timeouts, int crosstalk, double treesPerSecond,
      double overheadMillisPerTurn, int nodes, int turns, int runaways, int killed, int collateralLosses,
      int peakLiveNodes, Map<String, Integer> lossReasons) {}

  /** The cell that runs away: a built-in that ignores interrupts, so it costs its worker. */
  public static final String RUNAWAY = "```repl\nsum(range(10**13))\n```";

  /**
   * The scripted expert, except that every {@code every}-th child (by the order children ask
   * for their first turn) answers its first turn with {@link #RUNAWAY}.
   */
  static Policy withRunaways(Policy expert, int every, AtomicInteger childTurns, AtomicInteger runaways) {
    return new Policy() {
      @Override
      public Generation generate(PolicyCall call) throws PolicyException {
        if (every > 0 && call.node().depth() > 0 && call.turn() == 0
            && childTurns.incrementAndGet() % every == 0) {
          runaways.incrementAndGet();
          return Generation.ofText(RUNAWAY);
        }
        return expert.generate(call);
      }

      @Override
      public String complete(NodePath node, String prompt) throws PolicyException {
        return expert.complete(node, prompt);
      }
    };
  }

  /** Counts the nodes running at once. */
  private static final class Census implements TreeRunner.TreeListener {
    final AtomicInteger live = new AtomicInteger();
    final AtomicInteger peak = new AtomicInteger();

    @Override
    public void nodeStarted(String nodeId, int depth, String prompt) {
      peak.accumulateAndGet(live.incrementAndGet(), Math::max);
    }

    @Override
    public void turnEnded(String nodeId, Turn turn) {}

    @Override
    public void nodeEnded(NodeRecord node) {
      live.decrementAndGet();
    }
  }

  /**
   * The harness's own time per turn with one tree at a time (no queue for REPLs or CPU slots):
   * a node's wall time minus its generation and cell time, over its turns.
   */
  public static double harnessMillisPerTurn(List<Query> queries, Sandbox sandbox, Prompts prompts, RlmLimits limits) {
    TreeRunner runner = new TreeRunner(sandbox, new ExpertPolicy(ExpertPolicy.Settings.defaults()), prompts, limits);
    long overhead = 0;
    int turns = 0;
    for (Query q : queries) {
      for (NodeRecord n : runner.run(q.id() + "-alone", q.question(), q.papers()).nodes()) {
        long inside = 0;
        for (Turn t : n.turns()) {
          inside += t.genMillis() + t.execMillis();
        }
        overhead += Math.max(0, n.latencyMillis() - inside);
        turns += n.turns().size();
      }
    }
    return turns == 0 ? 0 : (double) overhead / turns;
  }

  public static List<Query> queries(Path qasperDir, int count, int papersPerQuery, long seed) throws IOException {
    List<QasperQuestion> questions = ExpertEvidenceBench.sample(qasperDir, count, seed);
    List<String> allPapers;
    try (var files = Files.list(qasperDir.resolve("papers"))) {
      allPapers = files.map(p -> p.getFileName().toString().replace(".txt", "")).sorted().toList();
    }
    Random random = new Random(seed);
    List<Query> out = new ArrayList<>();
    for (QasperQuestion q : questions) {
      Map<String, String> papers = new LinkedHashMap<>();
      papers.put(q.paperId(), Files.readString(qasperDir.resolve("papers").resolve(q.paperId() + ".txt")));
      while (papers.size() < papersPerQuery) {
        String id = allPapers.get(random.nextInt(allPapers.size()));
        papers.putIfAbsent(id, Files.readString(qasperDir.resolve("papers").resolve(id + ".txt")));
      }
      out.add(new Query(q.questionId(), q.question(), new RlmContext.Papers(papers)));
    }
    return out;
  }

  public static Result run(List<Query> queries, int samples, Sandbox sandbox, Prompts prompts, RlmLimits limits,
      PrintStream log) {
    return run(queries, samples, sandbox, prompts, limits, 0, log);
  }

  /** @param runawayEvery every this many children runs a runaway cell; 0 for none */
  public static Result run(List<Query> queries, int samples, Sandbox sandbox, Prompts prompts, RlmLimits limits,
      int runawayEvery, PrintStream log) {
    AtomicInteger childTurns = new AtomicInteger();
    AtomicInteger runaways = new AtomicInteger();
    Census census = new Census();
    List<Thread> threads = new ArrayList<>();
    List<TreeRunner.TreeResult> results = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Query> ofResult = java.util.Collections.synchronizedList(new ArrayList<>());
    long t0 = System.nanoTime();
    for (int s = 0; s < samples; s++) {
      ExpertPolicy.Settings d = ExpertPolicy.Settings.defaults();
      Policy expert = new ExpertPolicy(new ExpertPolicy.Settings(d.window(), d.keep(),
          d.maxSpans(), d.maxPapers(), d.abstractChars(), s));
      TreeRunner runner = new TreeRunner(sandbox, withRunaways(expert, runawayEvery, childTurns, runaways),
          prompts, limits, census);
      for (Query q : queries) {
        String treeId = q.id() + "-s" + s;
        threads.add(Thread.ofVirtual().start(() -> {
          TreeRunner.TreeResult r = runner.run(treeId, q.question(), q.papers());
          synchronized (results) {
            results.add(r);
            ofResult.add(q);
            if (log != null && results.size() % 16 == 0) {
              log.printf("  %d/%d trees%n", results.size(), queries.size() * samples);
            }
          }
        }));
      }
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    int completed = 0;
    int timeouts = 0;
    int crosstalk = 0;
    int nodes = 0;
    int turns = 0;
    int killed = 0;
    int collateral = 0;
    Map<String, Integer> reasons = new java.util.TreeMap<>();
    long overhead = 0;
    for (int i = 0; i < results.size(); i++) {
      TreeRunner.TreeResult tree = results.get(i);
      Query q = ofResult.get(i);
      if (tree.root().status() == NodeStatus.FINAL) {
        completed++;
      }
      for (NodeRecord n : tree.nodes()) {
        nodes++;
        turns += n.turns().size();
        long inside = 0;
        for (Turn t : n.turns()) {
          inside += t.genMillis() + t.execMillis();
          if (t.observation().contains("wall-time limit")) {
            timeouts++;
          }
        }
        overhead += Math.max(0, n.latencyMillis() - inside);
        if (n.status() == NodeStatus.BUDGET) {
          timeouts++;
        }
        if (n.status() == NodeStatus.SANDBOX_ERROR) {
          killed++;
        }
        if (n.status() == NodeStatus.SANDBOX_LOST) {
          collateral++;
          reasons.merge(lossReason(n), 1, Integer::sum);
        }
        for (String span : FinalSpans.of(n.finalAnswerJson())) {
          if (q.papers().byId().values().stream().noneMatch(text -> text.contains(span))) {
            crosstalk++;
          }
        }
      }
    }
    return new Result(results.size(), completed, timeouts, crosstalk, results.size() / seconds,
        turns == 0 ? 0 : (double) overhead / turns, nodes, turns, runaways.get(), killed, collateral,
        census.peak.get(), reasons);
  }

  private static String lossReason(NodeRecord lost) {
    if (lost.turns().isEmpty()) {
      return "no REPL could be opened";
    }
    String observation = lost.turns().getLast().observation();
    for (String line : observation.split("\n")) {
      if (line.contains("lost") || line.contains("restored")) {
        return line.replaceAll("\\d+", "N").strip();
      }
    }
    return "(its last observation does not say)";
  }

}
