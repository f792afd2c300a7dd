package arbor.jobs.bench;

import arbor.inputs.MissingInput;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code arbor bench <name>}: runs one benchmark and ends with one line, {@code BENCH } and a
 * JSON object of its key figures, for scripts. Benchmarks are measurements, never tests.
 */
public final class BenchJob implements Job {

  static Map<String, Benchmark> benchmarks() {
    Map<String, Benchmark> all = new LinkedHashMap<>();
    all.put("ingest", new IngestBench());
    all.put("model", new ModelBenchmark());
    all.put("prefix", new PrefixBench());
    all.put("expert", new ExpertBench());
    all.put("trees", new TreesBench());
    all.put("groups", new GroupsBench());
    all.put("repl", new ReplBench());
    all.put("rollouts", new RolloutsBench());
    all.put("learner", new LearnerBench());
    all.put("advantages", new AdvantagesBench());
    all.put("judge", new JudgeBench());
    all.put("checkpoints", new CheckpointsBench());
    all.put("dataset", new DatasetBench());
    all.put("learning", new LearningBench());
    return all;
  }

  @Override
  public String summary() {
    return "run a benchmark against its baseline and print a BENCH {json} line";
  }

  @Override
  public String usage() {
    StringBuilder s = new StringBuilder("usage: arbor bench <name> [benchmark options]\nbenchmarks:\n");
    benchmarks().forEach((name, b) -> s.append(String.format("  %-8s %s%n", name, b.summary())));
    return s.append("results and the commands that produced them: docs/benchmarks.md").toString();
  }

  @Override
  public int run(JobContext context) throws Exception {
    if (context.args().isEmpty()) throw new UsageError("bench: name a benchmark: " + benchmarks().keySet());
    String name = context.args().get(0);
    Benchmark benchmark = benchmarks().get(name);
    if (benchmark == null) throw new UsageError("bench: unknown benchmark '" + name + "'; the benchmarks are " + benchmarks().keySet());
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("bench", name);
    try {
      figures.putAll(benchmark.run(new BenchContext(context, context.args().subList(1, context.args().size()))));
    } catch (MissingInput e) {
      throw e.by("bench " + name);
    }
    context.out().println("BENCH " + new ObjectMapper().writeValueAsString(figures));
    return 0;
  }
}
