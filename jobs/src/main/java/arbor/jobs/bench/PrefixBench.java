package arbor.jobs.bench;

import ai.djl.Device;
import arbor.jobs.bench.rlm.QasperDir;
import arbor.jobs.bench.rlm.TreeLoadBench;
import arbor.jobs.cli.Args;
import arbor.jobs.setup.TokenizerFetcher;
import arbor.policy.files.PolicyTokenizer;
import arbor.policy.files.Qwen3ChatFormat;
import arbor.policy.generate.GenerationEngine;
import arbor.policy.generate.SamplingParams;
import arbor.policy.kernels.TorchThreads;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import arbor.policy.model.ScratchModel;
import arbor.rlm.Prompts;
import arbor.rlm.RlmLimits;
import arbor.rlm.TreeRunner;
import arbor.rlm.policy.ExpertPolicy;
import arbor.rlm.policy.NodePath;
import arbor.rlm.policy.Policy;
import arbor.rlm.policy.PolicyCall;
import arbor.rlm.sandbox.InProcessSandbox;
import arbor.rlm.sandbox.SandboxLimits;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * {@code bench prefix}: a recorded RLM workload replayed through the generation engine with and
 * without the prefix cache.
 *
 * <p>Recording: the scripted expert answers QASPER questions over a few papers each, {@code
 * samples} trees per question (each sample its own seed), in-process; every policy call (a
 * node's whole conversation at one turn) is rendered with Qwen3's chat format and tokenized with
 * the Qwen3 tokenizer. Replay: per question, every node of every sample submits its turns one
 * after another (a turn waits for the previous one's generation), all nodes of the question at
 * once; questions one after another. The model is a small random Qwen3 config with the real
 * vocabulary: the figures are about the engine (what it computes, what it keeps), not about
 * the weights.
 */
final class PrefixBench implements Benchmark {

  @Override
  public String summary() {
    return "recorded RLM trees (expert, QASPER) through the engine with and without the prefix"
        + " cache (--queries, --samples, --budget-mb)";
  }

  /** One node's prompts, turn by turn, as token ids. */
  private record NodeTurns(String node, List<int[]> prompts) {}

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    PrintStream out = ctx.out();
    Args args = Args.parse("bench prefix", ctx.args(), Set.of(), Set.of("qasper", "queries",
        "samples", "papers", "seed", "tokenizer", "new-tokens", "budget-mb", "threads",
        "workload"));
    Path qasper = QasperDir.require(args.value("qasper"));
    int queries = Integer.parseInt(args.value("queries").orElse("2"));
    int samples = Integer.parseInt(args.value("samples").orElse("8"));
    int papers = Integer.parseInt(args.value("papers").orElse("3"));
    long seed = Long.parseLong(args.value("seed").orElse("1"));
    int newTokens = Integer.parseInt(args.value("new-tokens").orElse("8"));
    int budgetMb = Integer.parseInt(args.value("budget-mb").orElse("256"));
    int threads = TorchThreads.configure(Integer.parseInt(args.value("threads").orElse("0")));
    Path tokenizerDir = args.value("tokenizer").map(Path::of).orElse(null);
    if (tokenizerDir == null) {
      TokenizerFetcher fetcher = new TokenizerFetcher(
          Path.of(ctx.config().dataDir()).toAbsolutePath());
      fetcher.fetch(ctx.config().setup().tokenizerPackage());
      tokenizerDir = fetcher.target();
    }

    // Recording runs the trees in GraalPy (minutes on 2 cores): it is kept and reused.
    Path saved = Path.of(args.value("workload").orElse(Path.of(ctx.config().dataDir())
        .resolve("bench").resolve(String.format("prefix-q%d-s%d-p%d-seed%d.json", queries,
            samples, papers, seed)).toString()));
    ObjectMapper json = new ObjectMapper();
    TypeReference<List<List<NodeTurns>>> type = new TypeReference<>() {};
    List<List<NodeTurns>> workload;
    if (Files.isRegularFile(saved)) {
      workload = json.readValue(saved.toFile(), type);
      out.println("replaying the recorded workload " + saved);
    } else {
      try (PolicyTokenizer tokenizer = PolicyTokenizer.load(tokenizerDir.resolve(
          "tokenizer.json"))) {
        workload = record(ctx, qasper, queries, samples, papers, seed, tokenizer, out);
      }
      Files.createDirectories(saved.toAbsolutePath().getParent());
      json.writeValue(saved.toFile(), workload);
      out.println("recorded workload saved to " + saved);
    }
    int vocab = 1 + workload.stream().flatMap(List::stream).flatMap(n -> n.prompts().stream())
        .flatMapToInt(java.util.Arrays::stream).max().orElse(0);
    long prompts = workload.stream().flatMap(List::stream).mapToLong(n -> n.prompts().size())
        .sum();
    long promptTokens = workload.stream().flatMap(List::stream).flatMap(n -> n.prompts().stream())
        .mapToLong(p -> p.length).sum();
    out.printf("recorded %d prompts, %d prompt tokens (%.0f per prompt), %d nodes%n", prompts,
        promptTokens, (double) promptTokens / prompts,
        workload.stream().mapToLong(List::size).sum());

    // A tiny body (2 layers, hidden 64) on the real token ids, so the run stays short on a
    // CPU: the prefill ratio and the memory do not depend on the model; the speedup does.
    ModelConfig config = ModelConfig.qwen3(vocab, 64, 128, 2, 2, 1, 32, true);
    Map<String, Object> figures = new LinkedHashMap<>();
    try (Qwen3Model model = ScratchModel.model(config, 3, Device.cpu())) {
      GenerationEngine.Options base = GenerationEngine.Options.defaults()
          .withKvBudget((long) budgetMb << 20, GenerationEngine.Options.DEFAULT_BLOCK_SIZE);
      Replay off = replay(model, base.withPrefixCache(false), workload, newTokens, out);
      Replay on = replay(model, base, workload, newTokens, out);
      double ratio = (double) on.stats.prefillTokens() / on.stats.promptTokens();
      figures.put("prefill_ratio_with_cache", round(ratio));
      figures.put("prefill_ratio_without_cache",
          round((double) off.stats.prefillTokens() / off.stats.promptTokens()));
      figures.put("speedup_with_cache", round(off.seconds / on.seconds));
      figures.put("kv_peak_fraction_of_budget",
          round((double) on.stats.peakBlocks() / on.stats.totalBlocks()));
      figures.put("kv_peak_fraction_of_budget_without_cache",
          round((double) off.stats.peakBlocks() / off.stats.totalBlocks()));
      figures.put("prompt_tokens_per_s_with_cache", round(promptTokens / on.seconds));
      figures.put("prompt_tokens_per_s_without_cache", round(promptTokens / off.seconds));
      figures.put("preemptions_with_cache", on.stats.preemptions());
      figures.put("preemptions_without_cache", off.stats.preemptions());
      figures.put("prompts", prompts);
      figures.put("prompt_tokens", promptTokens);
      figures.put("kv_budget_mb", budgetMb);
      figures.put("torch_threads", threads);
    }
    return figures;
  }

  /** Runs the expert's trees and tokenizes every policy call, grouped by question. */
  private static List<List<NodeTurns>> record(BenchContext ctx, Path qasper, int queries,
      int samples, int papers, long seed, PolicyTokenizer tokenizer, PrintStream out)
      throws Exception {
    var c = ctx.config();
    Prompts prompts = Prompts.of(c.rlm());
    Qwen3ChatFormat chat = new Qwen3ChatFormat(false);
    List<List<NodeTurns>> all = new ArrayList<>();
    long t0 = System.nanoTime();
    try (InProcessSandbox sandbox = new InProcessSandbox(SandboxLimits.of(c.repl()))) {
      for (TreeLoadBench.Query q : TreeLoadBench.queries(qasper, queries, papers, seed)) {
        List<NodeTurns> nodes = new ArrayList<>();
        for (int s = 0; s < samples; s++) {
          ExpertPolicy.Settings d = ExpertPolicy.Settings.defaults();
          Recorder recorder = new Recorder(new ExpertPolicy(new ExpertPolicy.Settings(d.window(),
              d.keep(), d.maxSpans(), d.maxPapers(), d.abstractChars(), s)));
          new TreeRunner(sandbox, recorder, prompts, RlmLimits.of(c.rlm(), c.repl()))
              .run(q.id() + "-s" + s, q.question(), q.papers());
          recorder.calls.forEach((node, calls) -> nodes.add(new NodeTurns("s" + node,
              calls.stream().map(m -> tokenizer.encode(chat.render(new ArrayList<>(m), true)))
                  .toList())));
        }
        all.add(nodes);
        out.printf("recorded question %s: %d nodes (%.1f s so far)%n", q.id(), nodes.size(),
            (System.nanoTime() - t0) / 1e9);
      }
    }
    return all;
  }

  /** Keeps every conversation a policy is asked to continue, by node, in turn order. */
  private static final class Recorder implements Policy {
    private final Policy inner;
    final Map<String, List<List<arbor.policy.files.ChatMessage>>> calls =
        Collections.synchronizedMap(new LinkedHashMap<>());

    Recorder(Policy inner) {
      this.inner = inner;
    }

    @Override
    public arbor.rlm.policy.Generation generate(PolicyCall call) throws PolicyException {
      calls.computeIfAbsent(call.node().toString(), k -> new ArrayList<>()).add(call.messages());
      return inner.generate(call);
    }

    @Override
    public String complete(NodePath node, String prompt) throws PolicyException {
      return inner.complete(node, prompt);
    }
  }

  private record Replay(GenerationEngine.Stats stats, double seconds) {}

  private static Replay replay(Qwen3Model model, GenerationEngine.Options options,
      List<List<NodeTurns>> workload, int newTokens, PrintStream out) {
    try (GenerationEngine engine = new GenerationEngine(model, options)) {
      long t0 = System.nanoTime();
      int seed = 0;
      for (List<NodeTurns> question : workload) {
        List<CompletableFuture<Void>> chains = new ArrayList<>();
        for (NodeTurns node : question) {
          CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
          for (int[] prompt : node.prompts()) {
            SamplingParams p = new SamplingParams(1.0, 1.0, 0, newTokens, seed++, Set.of());
            chain = chain.thenCompose(v -> engine.submit(prompt, p)).thenApply(g -> (Void) null);
          }
          chains.add(chain);
        }
        CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new)).join();
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      GenerationEngine.Stats s = engine.stats();
      out.printf("prefix cache %-3s: %.1f s, prefill %d of %d prompt tokens (%.3f), %d cached,"
              + " peak %d of %d KV blocks, %d preemptions%n",
          options.prefixCache() ? "on" : "off", seconds, s.prefillTokens(), s.promptTokens(),
          (double) s.prefillTokens() / s.promptTokens(), s.cachedTokens(), s.peakBlocks(),
          s.totalBlocks(), s.preemptions());
      return new Replay(s, seconds);
    }
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
