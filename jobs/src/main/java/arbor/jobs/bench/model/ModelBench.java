package arbor.jobs.bench.model;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import arbor.conf.DjlPolicySettings.Matmul;
import arbor.policy.generate.GenerationEngine;
import arbor.policy.generate.SamplingParams;
import arbor.policy.kernels.TorchThreads;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import arbor.policy.model.ScratchModel;
import arbor.policy.model.VectorLinear;
import arbor.policy.train.PolicyForward;
import arbor.policy.train.ResponseLogProbs;
import arbor.policy.train.ResponseSample;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * Measures the policy model on this machine against this machine's own matmul roofline, all in
 * one run: a large DJL matmul gives the achievable FLOP/s, then decode (batch 1/8/32/64),
 * prefill, long-context decode and training forward+backward are reported as fractions of it.
 *
 * <p>Decode is also reported against what memory allows: a step reads every weight once, so at
 * small batches the bandwidth of a large tensor sum, not the matmul peak, bounds it
 * ({@code decode_attainable_fraction_b32_100m}).
 *
 * <p>FLOPs are counted as 2 per matmul parameter per token for inference and 6 for training
 * (the LM head included, the embedding lookup not); attention-score FLOPs are left out, which
 * flatters nothing: at the contexts measured here they are a few percent.
 *
 * <p>Run it through {@code bin/arbor bench model} or its {@link #main}.
 */
public final class ModelBench {

  /** What to measure; {@link #full()} is the benchmark, {@link #smoke()} keeps a test fast. */
  public record Options(List<Named> models, int[] batches, int newTokens, int prefillTokens,
      int longPrefillTokens, int prefillSequences, int longPrefillSequences, int shortContext, int longContext,
      int trainRows, int trainTokens, int matmulSize, int streamMegabytes) {

    public static Options full() {
      return new Options(List.of(
          new Named("10m", ModelConfig.qwen3(32_000, 256, 768, 6, 4, 2, 64, true)),
          new Named("100m", ModelConfig.qwen3(32_000, 768, 2048, 12, 12, 4, 64, true))),
          new int[] {1, 8, 32, 64}, 32, 512, 4096, 4, 2, 128, 4096, 2, 256, 2048, 400);
    }

    public static Options smoke() {
      return new Options(List.of(
          new Named("10m", ModelConfig.qwen3(300, 32, 64, 2, 4, 2, 8, true)),
          new Named("100m", ModelConfig.qwen3(300, 48, 96, 2, 4, 2, 12, true))),
          new int[] {1, 32}, 4, 16, 40, 3, 2, 8, 32, 2, 16, 256, 8);
    }
  }

  /** A model config with its short name (used in the result keys). */
  public record Named(String name, ModelConfig config) {}

  private final Options options;
  private final Matmul matmul;
  private final PrintStream out;

  /** Decode steps timed per round of {@link #contextRatio}. */
  private static final int CONTEXT_STEPS = 16;

  /** Measures with the engine's CPU matmul kernel set to {@code matmul}. */
  public ModelBench(Options options, Matmul matmul, PrintStream out) {
    this.options = options;
    this.matmul = matmul;
    this.out = out;
  }

  public ModelBench(Options options, PrintStream out) {
    this(options, Matmul.AUTO, out);
  }

  /**
   * {@code [--smoke] [--threads N]}: N sets libtorch's intra-op threads for the whole JVM
   * (default: the engine's automatic choice, {@link TorchThreads#auto()}).
   */
  public static void main(String[] args) throws Exception {
    List<String> a = List.of(args);
    Options o = a.contains("--smoke") ? Options.smoke() : Options.full();
    int t = a.indexOf("--threads");
    TorchThreads.configure(t >= 0 ? Integer.parseInt(a.get(t + 1)) : 0);
    Map<String, Object> result = new ModelBench(o, System.out).run();
    StringBuilder json = new StringBuilder("BENCH {");
    result.forEach((k, v) -> json.append(json.length() > 7 ? ", " : "").append('"').append(k)
        .append("\": ").append(v instanceof Double d ? String.format("%.4f", d) : v));
    System.out.println(json.append('}'));
  }

  /** Runs everything; returns the key figures (the BENCH keys first). */
  public Map<String, Object> run() throws Exception {
    Map<String, Object> detail = new LinkedHashMap<>();
    // The roofline is measured between sections and the best kept: on shared cores a single
    // measurement can land in someone else's build and make every fraction look too good.
    out.printf("libtorch intra-op threads: %d, cores: %d%n", TorchThreads.get(),
        Runtime.getRuntime().availableProcessors());
    detail.put("torch_threads", TorchThreads.get());
    double peak = matmulFlops();
    Named largest = options.models().get(options.models().size() - 1);
    double b32 = 0;
    double b32Batch = 0;
    double matmulMs = 0;
    double ratio = 0;
    double trainTokS = 0;
    long largestParams = matmulParams(largest.config());
    for (Named m : options.models()) {
      long params = matmulParams(m.config());
      out.printf("%n== %s: %.1fM matmul parameters (%.1fM total) ==%n", m.name(), params / 1e6,
          totalParams(m.config()) / 1e6);
      try (Qwen3Model model = randomModel(m.config())) {
        // The engine's default configuration: what a rollout gets without tuning.
        try (GenerationEngine engine = new GenerationEngine(model,
            GenerationEngine.Options.defaults().withMatmul(matmul))) {
          out.println("engine matmul: " + engine.matmul());
          detail.put("engine_matmul_" + m.name(), engine.matmul());
          decodeRate(engine, 1, 4, 16);  // warm-up: first calls allocate and spin up threads
          out.println("batch  decode tok/s  mean batch");
          for (int b : options.batches()) {
            // Each batch size warmed first: its first steps recompile the kernels for the new
            // row count (C2 deoptimises on the changed branch profile), which at 32 tokens per
            // run moved batch 32's rate by up to 2.5x between otherwise similar runs.
            decodeRate(engine, b, Math.max(1, options.newTokens() / 4), 16);
            double[] r = decodeRate(engine, b, options.newTokens(), 16);
            out.printf("%5d  %12.1f  %10.1f%n", b, r[0], r[1]);
            detail.put("decode_tok_s_b" + b + "_" + m.name(), r[0]);
            if (m == largest && b == 32) {
              b32 = r[0];
              b32Batch = r[1];
            }
          }
          for (int length : new int[] {options.prefillTokens(), options.longPrefillTokens()}) {
            int count = length == options.prefillTokens() ? options.prefillSequences()
                : options.longPrefillSequences();
            double prefill = prefillRate(engine, length, count);
            out.printf("prefill (%d prompts of %d tokens at once): %.1f tok/s%n", count, length,
                prefill);
            detail.put("prefill_tok_s_" + (length == options.prefillTokens() ? "" : length + "_")
                + m.name(), prefill);
          }
          if (m == largest) {
            matmulMs = weightMatmulMillis(model, (int) Math.round(b32Batch), engine.linear());
            ratio = contextRatio(engine, detail);
          }
        }
        peak = Math.max(peak, matmulFlops());
        if (m == largest) {
          trainTokS = trainRate(model, detail);
          peak = Math.max(peak, matmulFlops());
        }
      }
    }
    out.printf("%nroofline: best %dx%d F32 matmul = %.1f GFLOP/s (libtorch %.1f, vector kernel"
        + " %.1f)%n", options.matmulSize(), options.matmulSize(), peak / 1e9, torchPeak / 1e9,
        vectorPeak / 1e9);
    // Decode streams every weight once per step; at batch b that is b/2 FLOPs per byte in F32,
    // so below a batch of 2 * peak / bandwidth the weights' bandwidth bounds it, not the FLOPs.
    double bandwidth = memoryBandwidth();
    double attainable = Math.min(peak, b32Batch / 2 * bandwidth);
    out.printf("memory: a %d MB tensor summed at %.1f GB/s; at the batch-32 run's mean batch of %.1f,"
        + " reading the %s weights alone bounds decode at %.1f GFLOP/s (%.2f of the roofline)%n",
        options.streamMegabytes(), bandwidth / 1e9, b32Batch, largest.name(), attainable / 1e9, attainable / peak);
    // Where a batch-32 step goes: its weight matmuls timed alone, the rest is attention over
    // the paged cache (KV writes, gathers), norms, RoPE and sampling.
    double stepMs = b32Batch / b32 * 1e3;
    out.printf("%s batch-32 decode step: %.1f ms; its weight matmuls alone at %d rows: %.1f ms"
        + " (%.2f of the roofline); everything else: %.1f ms%n", largest.name(), stepMs,
        Math.round(b32Batch), matmulMs, 2.0 * largestParams * Math.round(b32Batch) / (matmulMs / 1e3) / peak,
        stepMs - matmulMs);
    detail.put("decode_step_ms_b32_100m", stepMs);
    detail.put("decode_matmul_ms_b32_100m", matmulMs);
    Map<String, Object> keys = new LinkedHashMap<>();
    keys.put("decode_roofline_fraction_b32_100m", b32 * 2 * largestParams / peak);
    keys.put("decode_cost_ratio_4096_vs_128", ratio);
    keys.put("train_roofline_fraction_100m", trainTokS * 6 * largestParams / peak);
    keys.put("decode_attainable_fraction_b32_100m", b32 * 2 * largestParams / attainable);
    keys.put("memory_gb_s", bandwidth / 1e9);
    keys.put("matmul_gflops", peak / 1e9);
    keys.put("matmul_gflops_torch", torchPeak / 1e9);
    keys.put("matmul_gflops_vector", vectorPeak / 1e9);
    for (Named m : options.models()) {
      long params = matmulParams(m.config());
      for (int b : options.batches()) {
        double f = (Double) detail.get("decode_tok_s_b" + b + "_" + m.name()) * 2 * params / peak;
        detail.put("decode_roofline_fraction_b" + b + "_" + m.name(), f);
        out.printf("%s decode batch %d: %.3f of roofline%n", m.name(), b, f);
      }
      double pf = (Double) detail.get("prefill_tok_s_" + m.name()) * 2 * params / peak;
      detail.put("prefill_roofline_fraction_" + m.name(), pf);
      String longKey = options.longPrefillTokens() + "_" + m.name();
      double pl = (Double) detail.get("prefill_tok_s_" + longKey) * 2 * params / peak;
      detail.put("prefill_roofline_fraction_" + longKey, pl);
      out.printf("%s prefill: %.3f of roofline at %d tokens, %.3f at %d%n", m.name(), pf,
          options.prefillTokens(), pl, options.longPrefillTokens());
      if (m == largest) {
        keys.put("prefill_roofline_fraction_100m", pf);
        keys.put("prefill_roofline_fraction_" + options.longPrefillTokens() + "_100m", pl);
      }
    }
    out.printf("train fwd+bwd %s: %.3f of roofline%n", largest.name(),
        keys.get("train_roofline_fraction_100m"));
    keys.putAll(detail);
    return keys;
  }

  /**
   * Best of five large matmuls: what this machine's BLAS achieves through DJL. Measured again
   * before each section and the best kept, since the cores may be shared with other work.
   */
  private double matmulFlops() {
    double torch = matmulRoofline(options.matmulSize());
    torchPeak = Math.max(torchPeak, torch);
    if (VectorLinear.slow() != null) {
      return torch;
    }
    try (VectorLinear v = new VectorLinear(TorchThreads.get(), () -> 0)) {
      double vector = matmulRoofline(options.matmulSize(), v);
      vectorPeak = Math.max(vectorPeak, vector);
      return Math.max(torch, vector);
    }
  }

  private double torchPeak;
  private double vectorPeak;

  /**
   * Best of five n x n F32 products x W^T, in FLOP/s: with libtorch's GEMM, or with
   * {@code linear}. With the best kernel this JVM runs (libtorch's, or the engine's vector kernel
   * where that is faster), this machine's roofline.
   */
  public static double matmulRoofline(int n) {
    return matmulRoofline(n, Qwen3Model.TORCH);
  }

  public static double matmulRoofline(int n, Qwen3Model.Linear linear) {
    try (NDManager m = NDManager.newBaseManager(Device.cpu())) {
      NDArray a = m.randomNormal(new Shape(n, n));
      NDArray b = m.randomNormal(new Shape(n, n));
      return 2.0 * n * n * n / bestSeconds(() -> {
        try (NDManager step = m.newSubManager()) {
          NDArray c = linear.linear(a, b, null);
          c.attach(step);
          c.getFloat(0, 0);  // forces completion
        }
      });
    }
  }

  /**
   * Milliseconds for one decode step's weight matmuls at {@code rows} rows (every projection,
   * the MLP and the LM head, as the engine runs them).
   */
  private static double weightMatmulMillis(Qwen3Model model, int rows, Qwen3Model.Linear linear) {
    String embedding = "model.embed_tokens.weight";
    List<NDArray> weights = new ArrayList<>();
    // The projections that share an input (q, k, v; gate, up), as the Java decoder runs them.
    Map<String, List<NDArray>> shared = new LinkedHashMap<>();
    for (var e : model.parameters().entrySet()) {
      // The embedding is a lookup, unless it is also the (tied) LM head.
      if (e.getValue().getShape().dimension() == 2
          && (!e.getKey().equals(embedding) || model.config().tieWordEmbeddings())) {
        weights.add(e.getValue());
        String input = e.getKey().replaceAll("[qkv]_proj", "qkv")
            .replaceAll("(gate|up)_proj", "gate_up");
        shared.computeIfAbsent(input, k -> new ArrayList<>()).add(e.getValue());
      }
    }
    if (linear instanceof VectorLinear v) {
      // As the engine's Java decoder runs them: on float arrays, without libtorch.
      SplittableRandom r = new SplittableRandom(5);
      List<NDArray[]> groups = shared.values().stream()
          .map(g -> g.toArray(NDArray[]::new)).toList();
      List<float[]> inputs = groups.stream().map(g -> {
        float[] x = new float[rows * (int) g[0].getShape().get(1)];
        for (int i = 0; i < x.length; i++) {
          x[i] = (float) r.nextGaussian();
        }
        return x;
      }).toList();
      return bestSeconds(() -> {
        for (int j = 0; j < groups.size(); j++) {
          v.multiply(inputs.get(j), rows, groups.get(j), new float[groups.get(j).length][]);
        }
      }) * 1e3;
    }
    return timeWeightMatmuls(model, rows, linear, weights);
  }

  private static double timeWeightMatmuls(Qwen3Model model, int rows, Qwen3Model.Linear linear,
      List<NDArray> weights) {
    try (NDManager work = model.newWorkManager()) {
      List<NDArray> inputs = weights.stream()
          .map(w -> work.randomNormal(new Shape(rows, w.getShape().get(1)))).toList();
      return bestSeconds(() -> {
        try (NDManager step = work.newSubManager()) {
          NDArray last = null;
          for (int j = 0; j < weights.size(); j++) {
            NDArray x = inputs.get(j);
            last = linear.linear(x, weights.get(j), null);
            last.attach(step);
          }
          last.getFloat(0, 0);
        }
      }) * 1e3;
    }
  }

  /**
   * Bytes per second libtorch reads from memory with its threads: the best of five sums of a
   * tensor larger than any cache here (the 100m model's weights are as large).
   */
  private double memoryBandwidth() {
    long n = options.streamMegabytes() * (1L << 20) / Float.BYTES;
    try (NDManager m = NDManager.newBaseManager(Device.cpu())) {
      NDArray a = m.ones(new Shape(n));
      return n * Float.BYTES / bestSeconds(() -> {
        try (NDArray sum = a.sum()) {
          sum.getFloat();
        }
      });
    }
  }

  /** The fastest of five timed runs of {@code op}, in seconds, after one untimed warm-up run. */
  private static double bestSeconds(Runnable op) {
    op.run();
    double best = Double.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      long t0 = System.nanoTime();
      op.run();
      best = Math.min(best, (System.nanoTime() - t0) / 1e9);
    }
    return best;
  }

  /** Decode tokens/s with {@code batch} concurrent sequences, and the mean decode batch. */
  private double[] decodeRate(GenerationEngine engine, int batch, int newTokens, int prompt) {
    GenerationEngine.Stats before = engine.stats();
    List<CompletableFuture<?>> all = new ArrayList<>();
    for (int i = 0; i < batch; i++) {
      all.add(engine.submit(randomPrompt(prompt, i), sampling(newTokens, i)));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    GenerationEngine.Stats d = engine.stats().minus(before);
    return new double[] {d.decodeTokens() / (d.decodeNanos() / 1e9),
        (double) d.decodeTokens() / Math.max(1, d.decodeSteps())};
  }

  /** Prefill tokens/s of {@code count} different prompts submitted together. */
  private double prefillRate(GenerationEngine engine, int tokens, int count) {
    GenerationEngine.Stats before = engine.stats();
    List<CompletableFuture<?>> all = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      all.add(engine.submit(randomPrompt(tokens, 99 + i), sampling(1, i)));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    GenerationEngine.Stats d = engine.stats().minus(before);
    return d.prefillTokens() / (d.prefillNanos() / 1e9);
  }

  /**
   * Decode time per step at batch 1 with a long context over that with a short one, through the
   * engine: a prompt of each length, then {@link #CONTEXT_STEPS} decode steps (with the prefix
   * cache only the first round prefills the prompt). The two are measured interleaved, 15 rounds
   * each after 3 warm-up rounds, and the medians compared, so a burst of other work on shared
   * cores does not land on one side only.
   */
  private double contextRatio(GenerationEngine engine, Map<String, Object> detail) {
    int[] contexts = {options.shortContext(), options.longContext()};
    double[][] samples = new double[2][15];
    for (int r = -3; r < samples[0].length; r++) {
      for (int c = 0; c < 2; c++) {
        GenerationEngine.Stats before = engine.stats();
        engine.generate(randomPrompt(contexts[c], 7 + c), sampling(CONTEXT_STEPS + 1, r));
        GenerationEngine.Stats d = engine.stats().minus(before);
        if (r >= 0) {
          samples[c][r] = d.decodeNanos() / 1e6 / Math.max(1, d.decodeSteps());
        }
      }
    }
    double[] median = new double[2];
    for (int c = 0; c < 2; c++) {
      java.util.Arrays.sort(samples[c]);
      median[c] = samples[c][samples[c].length / 2];
      out.printf("decode step at positions %d-%d (batch 1): median %.2f ms (min %.2f, max %.2f)%n",
          contexts[c], contexts[c] + CONTEXT_STEPS, median[c], samples[c][0], samples[c][samples[c].length - 1]);
      detail.put("decode_ms_per_token_at_" + contexts[c], median[c]);
    }
    double ratio = median[1] / median[0];
    out.printf("decode cost ratio %d vs %d: %.2f%n", contexts[1], contexts[0], ratio);
    return ratio;
  }

  /** Training forward + backward tokens/s (6 FLOPs per parameter per token). */
  private double trainRate(Qwen3Model model, Map<String, Object> detail) {
    int rows = options.trainRows();
    int tokens = options.trainTokens();
    List<ResponseSample> batch = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      batch.add(new ResponseSample(randomPrompt(tokens / 2, 50 + i),
          randomPrompt(tokens - tokens / 2, 60 + i)));
    }
    PolicyForward forward = new PolicyForward(model, 1.0);
    model.setTrainable(true);
    double best = Double.MAX_VALUE;
    try {
      for (int i = 0; i < 3; i++) {  // the first is a warm-up
        long t0 = System.nanoTime();
        try (NDManager work = model.newWorkManager();
            GradientCollector gc = Engine.getInstance().newGradientCollector()) {
          ResponseLogProbs lp = forward.score(work, batch);
          NDArray loss = lp.logProbs().mul(lp.mask()).sum().neg().div(lp.mask().sum());
          gc.backward(loss);
        }
        if (i > 0) {
          best = Math.min(best, (System.nanoTime() - t0) / 1e9);
        }
      }
    } finally {
      model.setTrainable(false);
    }
    double tps = rows * tokens / best;
    out.printf("train fwd+bwd (%d x %d tokens): %.1f tok/s%n", rows, tokens, tps);
    detail.put("train_tok_s_100m", tps);
    return tps;
  }

  private static SamplingParams sampling(int newTokens, long seed) {
    return new SamplingParams(1.0, 1.0, 0, newTokens, seed, Set.of());
  }

  private int[] randomPrompt(int length, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int vocab = options.models().get(0).config().vocabSize();
    int[] p = new int[length];
    for (int i = 0; i < length; i++) {
      p[i] = r.nextInt(vocab);
    }
    return p;
  }

  /** A model of config {@code c} with seeded random weights, on the CPU. */
  public static Qwen3Model randomModel(ModelConfig c) {
    return ScratchModel.model(c, 1, Device.cpu());
  }

  /** Parameters that take part in a matmul per token: every layer's projections and the head. */
  public static long matmulParams(ModelConfig c) {
    return c.matmulParameters();
  }

  static long totalParams(ModelConfig c) {
    return Qwen3Model.expectedTensors(c).values().stream()
        .mapToLong(s -> java.util.Arrays.stream(s).reduce(1, (a, b) -> a * b)).sum();
  }
}
