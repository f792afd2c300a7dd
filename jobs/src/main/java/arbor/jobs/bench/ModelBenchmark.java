package arbor.jobs.bench;

import arbor.jobs.Args;
import arbor.jobs.bench.model.ModelBench;
import arbor.policy.model.TorchThreads;
import java.util.Map;
import java.util.Set;

/**
 * {@code bench model}: the policy model's decode, prefill and training throughput against this
 * machine's own large-matmul roofline, measured in the same run ({@link ModelBench}). Options:
 * {@code --threads N} sets libtorch's intra-op threads; {@code --smoke} runs tiny configs.
 */
final class ModelBenchmark implements Benchmark {

  @Override
  public String summary() {
    return "policy model decode/prefill/train tok/s as fractions of a DJL matmul roofline"
        + " (--threads N, --smoke)";
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    Args args = Args.parse("bench model", ctx.args(), Set.of("smoke"), Set.of("threads"));
    // Without --threads: the engine's automatic choice, as a rollout would get it.
    TorchThreads.configure(Integer.parseInt(args.value("threads").orElse("0")));
    ModelBench.Options options = args.flag("smoke") ? ModelBench.Options.smoke()
        : ModelBench.Options.full();
    return new ModelBench(options, ctx.out()).run();
  }
}
