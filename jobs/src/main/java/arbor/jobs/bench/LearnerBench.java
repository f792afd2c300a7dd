package arbor.jobs.bench;

import arbor.conf.LearnerSettings;
import arbor.conf.SetupSettings;
import arbor.jobs.bench.model.ModelBench;
import arbor.jobs.cli.Args;
import arbor.policy.kernels.TorchThreads;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import arbor.policy.train.BatchShape;
import arbor.policy.train.PolicyUpdate;
import arbor.policy.train.StepStats;
import arbor.policy.train.TrainSample;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * {@code bench learner}: one full learner step (reference scoring, memory-linear forward and
 * recomputing backward, AdamW) on one sample of 512, 2,048 and 8,192 tokens with the 100M
 * config. Reports training tokens/s as a fraction of the 6N roofline (6 FLOPs per matmul
 * parameter per token; the LM head counted at response positions only, where it runs; the
 * reference forward, the recomputation and attention are not counted, so they show as
 * overhead) against this machine's DJL matmul roofline measured in the same run, and the peak
 * resident memory each step adds over the loaded model, optimizer and reference (Linux
 * {@code VmHWM}, reset before each step through {@code /proc/self/clear_refs}).
 *
 * <p>Options: {@code --smoke} (tiny config, short lengths), {@code --lengths a,b,c},
 * {@code --threads N} (libtorch intra-op threads).
 */
final class LearnerBench implements Benchmark {

  /** A sample's response is this share of its tokens (the rest is prompt). */
  private static final int RESPONSE_SHARE = 4;

  @Override
  public String summary() {
    return "learner step tokens/s vs the 6N roofline and peak memory at 512/2,048/8,192 tokens"
        + " (--smoke, --student [--vocab N], --lengths, --threads)";
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    Args args = Args.parse("bench learner", ctx.args(), Set.of("smoke", "student"), Set.of("lengths", "threads", "vocab"));
    if (args.value("threads").isPresent()) {
      TorchThreads.set(Integer.parseInt(args.value("threads").get()));
    }
    boolean smoke = args.flag("smoke");
    ModelConfig config = smoke ? ModelBench.Options.smoke().models().get(1).config()
        : ModelBench.Options.full().models().get(1).config();
    if (args.flag("student")) {
      // The from-scratch student of the configuration (--conf learning), with the vocabulary its
      // trimming gave on the demo corpus unless --vocab says otherwise.
      SetupSettings.Student st = ctx.config().setup().student();
      int vocab = Integer.parseInt(args.value("vocab").orElse("1280"));
      config = ModelConfig.qwen3(vocab, st.hidden(), st.intermediate(), st.layers(), st.heads(), st.kvHeads(),
          st.headDim(), true);
    }
    int[] lengths = args.value("lengths").map(LearnerBench::parseLengths)
        .orElse(smoke ? new int[] {32, 64, 128} : new int[] {512, 2048, 8192});
    return measure(config, lengths, ctx.out());
  }

  static Map<String, Object> measure(ModelConfig config, int[] lengths, PrintStream out)
      throws IOException {
    LearnerSettings defaults = LearnerSettings.defaults();
    // One sample per step whatever its length: the budget is set above the longest.
    LearnerSettings settings = new LearnerSettings(defaults.lr(), defaults.weightDecay(),
        defaults.beta1(), defaults.beta2(), defaults.eps(), defaults.maxGradNorm(),
        defaults.epsClip(), defaults.betaKl(), defaults.reduction(), Integer.MAX_VALUE,
        defaults.attentionChunk());
    long layerParams = ModelBench.matmulParams(config)
        - (long) config.vocabSize() * config.hiddenSize();
    long headParams = (long) config.vocabSize() * config.hiddenSize();
    out.printf("learner bench: %d layers, hidden %d, %.1fM layer matmul parameters, chunk %d,"
        + " libtorch threads %d%n", config.numLayers(), config.hiddenSize(), layerParams / 1e6,
        settings.attentionChunk(), TorchThreads.get());
    double peak = ModelBench.matmulRoofline(2048);
    Map<String, Object> detail = new LinkedHashMap<>();
    Map<Integer, Double> flopRate = new LinkedHashMap<>();
    Map<Integer, Long> memory = new LinkedHashMap<>();
    try (Qwen3Model policy = ModelBench.randomModel(config);
        Qwen3Model reference = PolicyUpdate.frozenCopy(policy)) {
      policy.setTrainable(true);
      try (PolicyUpdate update = new PolicyUpdate(policy, reference, settings, 1.0)) {
        // Warm-up: allocates the gradients and first use of every kernel, so the baseline
        // below holds everything a step keeps between steps.
        step(update, config, 64);
        long base = rssKb("VmRSS");
        out.printf("resident after warm-up (weights, reference, gradients, moments): %.0f MB%n",
            base / 1024.0);
        out.println("tokens  seconds  tokens/s  6N roofline fraction  peak extra MB");
        for (int t : lengths) {
          resetPeak();
          StepStats s = step(update, config, t);
          long extra = rssKb("VmHWM") - base;
          int response = t / RESPONSE_SHARE;
          double rate = (6.0 * layerParams * t + 6.0 * headParams * response) / s.seconds();
          flopRate.put(t, rate);
          memory.put(t, extra);
          out.printf("%6d  %7.1f  %8.1f  %20.4f  %13.0f%n", t, s.seconds(), t / s.seconds(),
              rate / peak, extra / 1024.0);
          detail.put("train_tok_s_" + t, t / s.seconds());
          detail.put("step_seconds_" + t, s.seconds());
          detail.put("peak_extra_mb_" + t, extra / 1024.0);
        }
      }
    }
    // Measured again after the steps and the best kept: on shared cores one measurement can
    // land in someone else's build and make every fraction look too good.
    peak = Math.max(peak, ModelBench.matmulRoofline(2048));
    out.printf("roofline: best 2048x2048 F32 matmul with DJL = %.1f GFLOP/s%n", peak / 1e9);
    int mid = lengths[1];
    int last = lengths[lengths.length - 1];
    Map<String, Object> keys = new LinkedHashMap<>();
    keys.put("train_roofline_fraction_" + mid, flopRate.get(mid) / peak);
    keys.put("memory_ratio_" + last + "_vs_" + mid, (double) memory.get(last) / memory.get(mid));
    // What the step adds beyond its fixed part (gradients, optimizer temporaries): growth from
    // the shortest length, against the growth of the tokens (linear) and of T^2 (quadratic).
    int first = lengths[0];
    double growth = (double) (memory.get(last) - memory.get(first))
        / (memory.get(mid) - memory.get(first));
    keys.put("memory_growth_" + last + "_vs_" + mid + "_from_" + first, growth);
    out.printf("peak growth from %d: %.2f (linear would be %.2f, quadratic %.2f)%n", first,
        growth, (double) (last - first) / (mid - first),
        ((double) last * last - (double) first * first)
            / ((double) mid * mid - (double) first * first));
    keys.put("matmul_gflops", peak / 1e9);
    for (var e : flopRate.entrySet()) {
      detail.put("train_roofline_fraction_" + e.getKey(), e.getValue() / peak);
    }
    keys.putAll(detail);
    return keys;
  }

  private static StepStats step(PolicyUpdate update, ModelConfig config, int tokens) {
    int response = Math.max(1, tokens / RESPONSE_SHARE);
    SplittableRandom r = new SplittableRandom(tokens);
    int[] prompt = r.ints(tokens - response, 0, config.vocabSize()).toArray();
    int[] answer = r.ints(response, 0, config.vocabSize()).toArray();
    float[] behaviour = new float[response];
    java.util.Arrays.fill(behaviour, (float) -Math.log(config.vocabSize()));
    TrainSample s = new TrainSample("q", "n", 0, 1.0, 1.0, response, prompt, answer, behaviour);
    BatchShape shape = BatchShape.of(List.of(new BatchShape.QueryTotals("q", 1, response, 1.0)));
    return update.step(shape, List.of(s).iterator());
  }

  private static int[] parseLengths(String s) {
    try {
      int[] v = java.util.Arrays.stream(s.split(",")).mapToInt(x -> Integer.parseInt(x.trim()))
          .toArray();
      if (v.length < 2 || java.util.Arrays.stream(v).anyMatch(x -> x < 8)) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new arbor.jobs.cli.UsageError("bench learner: --lengths takes two or more comma-separated"
          + " lengths >= 8, got '" + s + "'");
    }
  }

  /** Resets the process's peak resident size (VmHWM) to its current size. */
  private static void resetPeak() throws IOException {
    Files.writeString(Path.of("/proc/self/clear_refs"), "5");
  }

  /** A memory line of /proc/self/status, in kB. */
  private static long rssKb(String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IOException("/proc/self/status has no " + field + " line (not Linux?)");
  }
}
