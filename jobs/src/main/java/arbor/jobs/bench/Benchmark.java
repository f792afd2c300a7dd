package arbor.jobs.bench;

import java.util.Map;

/**
 * One measured comparison, run by {@code bin/arbor bench <name>}. Implementations measure their
 * subject and a baseline in the same run, print progress and a human-readable table as they
 * go, and return the key figures (ratios included); the bench job prints them last as one
 * {@code BENCH {...}} JSON line that scripts read.
 */
public interface Benchmark {

  /** What {@code bin/arbor bench --help} shows beside the name. */
  String summary();

  /** Runs the benchmark and returns its key figures, in the order they should be printed. */
  Map<String, Object> run(BenchContext context) throws Exception;
}
