package arbor.jobs.bench;

import arbor.conf.DjlPolicySettings.Matmul;
import arbor.jobs.bench.model.ModelBench;
import arbor.jobs.cli.Args;
import arbor.policy.kernels.TorchThreads;
import java.util.Map;
import java.util.Set;

/**
 * {@code bench model}: the policy model's decode, prefill and training throughput against this
 * machine's own large-matmul roofline, measured in the same run ({@link ModelBench}). Options:
 * {@code --threads N} sets libtorch's intra-op threads; {@code --matmul auto|torch|vector} the
 * engine's CPU matmul kernel; {@code --smoke} runs tiny configs.
 */
final class ModelBenchmark implements Benchmark {

  @Override
  public String summary() {
    return "policy model decode/prefill/train tok/s as fractions of a DJL matmul roofline"
        + " (--threads N, --matmul auto|torch|vector, --smoke)";
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    Args args = Args.parse("bench model", ctx.args(), Set.of("smoke"),
        Set.of("threads", "matmul"));
    // Without --threads: the engine's automatic choice, as a rollout would get it.
    TorchThreads.configure(Integer.parseInt(args.value("threads").orElse("0")));
    ModelBench.Options options = args.flag("smoke") ? ModelBench.Options.smoke()
        : ModelBench.Options.full();
    String kernel = args.value("matmul").orElse("auto");
    Matmul matmul = java.util.Arrays.stream(Matmul.values())
        .filter(m -> m.name().equalsIgnoreCase(kernel)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("--matmul is auto, torch or vector, not '"
            + kernel + "'"));
    return new ModelBench(options, matmul, ctx.out()).run();
  }
}
