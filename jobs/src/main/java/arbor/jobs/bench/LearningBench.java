package arbor.jobs.bench;

import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.when;

import arbor.checkpoints.CheckpointStore;
import arbor.conf.AdvantageSettings;
import arbor.conf.ArborConfig;
import arbor.conf.LearnerSettings;
import arbor.conf.RolloutSettings;
import arbor.conf.TrainSettings;
import arbor.eval.Evaluate;
import arbor.jobs.Args;
import arbor.jobs.Job;
import arbor.jobs.JobContext;
import arbor.jobs.UsageError;
import arbor.jobs.demo.DemoJob;
import arbor.jobs.sft.SftJob;
import arbor.jobs.train.TrainJob;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.holder.RunCheckpoints;
import arbor.rlm.policy.PolicyKind;
import arbor.synthesis.Queries;
import arbor.synthesis.SplitPlan;
import arbor.tables.Cols;
import arbor.tables.Eval;
import arbor.tables.Metrics;
import arbor.warehouse.Table;
import arbor.warehouse.Warehouse;
import java.io.PrintStream;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.Row;

/**
 * Does GRPO improve on SFT, and does the 1/k normalisation matter? On a toy configuration (run
 * with {@code --conf demo}: the tiny student, short turns, the demo dataset): SFT by the scripted
 * expert, then the same number of GRPO steps from that one step-0 checkpoint twice, with the
 * published tree objective and with the unnormalised one ({@code token_mean} sample weights and
 * loss); the held-out judge score of the three policies on the same queries and, for each
 * difference of per-query means, a {@link PairedComparison}: queries of one paper group are not
 * independent, so the interval resamples paper groups and the sign-flip test flips them.
 */
final class LearningBench implements Benchmark {
  private static final String WHO = "bench learning";
  private static final int PHASES = 9;
  private static final String REWARD_MEAN = "judge.reward_mean";
  private static final PairedComparison STATS = PairedComparison.standard(20261201L);

  @Override
  public String summary() {
    return "sft vs grpo vs unnormalised grpo: held-out judge score, group bootstrap and sign-flip test (--conf demo)";
  }

  /**
   * One evaluated policy: its run, checkpoint step, mean judge score per held-out query, and its
   * infrastructure failures: trees left unjudged, and queries with no judged tree at all (not
   * scored, so not paired: a failure is not a score of 0).
   */
  private record Scored(String label, String run, long step, Map<String, Double> perQuery, long trees,
      long unjudgedTrees, int unscoredQueries) {
    double mean() {
      return perQuery.values().stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    Args args = Args.parse(WHO, ctx.args(), Set.of(), Set.of("steps", "queries-per-step", "samples", "split", "tag"));
    if (!args.positionals().isEmpty()) throw new UsageError(WHO + ": unexpected argument(s) " + args.positionals());
    int steps = positive(args, "steps", 3);
    int perStep = positive(args, "queries-per-step", 4);
    int samples = positive(args, "samples", 4);
    String tag = args.value("tag").orElse(LocalDateTime.now().format(DateTimeFormatter.ofPattern("MMdd-HHmmss")));
    ArborConfig c = ctx.config();
    if (c.policy().djl().modelDir() == null || c.policy().djl().modelDir().isBlank()) {
      throw new UsageError(WHO + ": policy.djl.model_dir is not set; run it as bin/arbor bench learning --conf demo"
          + " (the tiny student), or set it to a Hugging Face folder");
    }
    RolloutSettings r = c.rollouts();
    TrainSettings t = c.train();
    ArborConfig tree = c.withRollouts(new RolloutSettings(PolicyKind.DJL, samples, r.treesPerTask(),
            r.maxInfraFailureFraction(), r.sandbox()))
        .withTrain(new TrainSettings(steps, perStep, 0, t.progressSeconds()));
    ArborConfig unnormalised = unnormalised(tree);
    String sftRun = "learning-" + tag + "-sft";
    String rlRun = "learning-" + tag + "-rl";
    String unRun = "learning-" + tag + "-unnorm";

    PrintStream out = ctx.out();
    long start = System.nanoTime();
    JobContext job = ctx.job();
    out.printf(Locale.ROOT, "%s: %d GRPO steps of %d queries x %d samples per arm, runs %s, %s, %s; %d cores%n",
        WHO, steps, perStep, samples, sftRun, rlRun, unRun, Runtime.getRuntime().availableProcessors());
    if (!datasetReady(job)) {
      if (!DemoJob.dataset(job, WHO, PHASES)) throw new IllegalStateException(WHO + ": the demo dataset came out empty");
    } else {
      out.printf("== %s 1-3/%d: reusing the dataset in %s%n", WHO, PHASES, job.warehouse().root());
      DemoJob.printSplits(job);
    }
    String split = args.value("split").orElse(heldOutSplit(job.warehouse()));
    DemoJob.student(job, WHO, 4, PHASES);
    elapsed(out, start, "dataset and student");

    out.printf("== %s 5/%d: sft (the scripted expert on the sft split) under run %s%n", WHO, PHASES, sftRun);
    job(new SftJob(), job, tree, "--run", sftRun);
    CheckpointStore store = new CheckpointStore(ctx.spark(), job.warehouse(), c.checkpoints());
    Checkpoint sft = store.load(sftRun, 0);
    for (String run : List.of(rlRun, unRun)) {
      store.save(new Checkpoint(run, 0, sft.weights(), sft.optimizer(), sft.rng(), sft.files()));
    }
    elapsed(out, start, "sft");

    out.printf("== %s 6/%d: GRPO, the tree objective (1/k child weights), run %s%n", WHO, PHASES, rlRun);
    job(new TrainJob(), job, tree, "--run", rlRun);
    elapsed(out, start, "grpo (tree)");
    out.printf("== %s 7/%d: GRPO, the unnormalised objective (token_mean), run %s%n", WHO, PHASES, unRun);
    job(new TrainJob(), job, unnormalised, "--run", unRun);
    elapsed(out, start, "grpo (token_mean)");

    out.printf("== %s 8/%d: evaluation of the three policies on the %s split, %d samples per query%n",
        WHO, PHASES, split, samples);
    Evaluate evaluate = new Evaluate(tree, new RunCheckpoints(store.source()), System.getenv());
    Scored sftScore = score(job, evaluate, "sft", sftRun, 0, split);
    elapsed(out, start, "eval sft");
    Scored rlScore = score(job, evaluate, "rl (tree)", rlRun, steps, split);
    elapsed(out, start, "eval rl");
    Scored unScore = score(job, evaluate, "rl (token_mean)", unRun, steps, split);
    elapsed(out, start, "eval unnormalised");

    out.printf("== %s 9/%d: results%n", WHO, PHASES);
    Map<Long, Double> rlCurve = curve(job.warehouse(), rlRun);
    Map<Long, Double> unCurve = curve(job.warehouse(), unRun);
    out.println("curve: training reward (judge.reward_mean of the step's rollouts)");
    out.println("step | rl (tree) | rl (token_mean)");
    for (long s = 0; s < steps; s++) {
      out.printf(Locale.ROOT, "%4d | %9s | %15s%n", s, fmt(rlCurve.get(s)), fmt(unCurve.get(s)));
    }
    out.printf("held-out (%s split): mean judge score per query, averaged over queries%n", split);
    out.println("policy          | run                        | step | queries | trees | score");
    for (Scored s : List.of(sftScore, rlScore, unScore)) {
      out.printf(Locale.ROOT, "%-15s | %-26s | %4d | %7d | %5d | %.4f%n", s.label(), s.run(), s.step(),
          s.perQuery().size(), s.trees(), s.mean());
    }
    for (Scored s : List.of(sftScore, rlScore, unScore)) {
      if (s.unjudgedTrees() > 0) {
        out.printf(Locale.ROOT, "infrastructure failures, %s: %d unjudged trees, %d queries with no judged tree"
            + " (left out of its pairs)%n", s.label(), s.unjudgedTrees(), s.unscoredQueries());
      }
    }
    Map<String, String> groups = groupIds(job.warehouse());
    PairedComparison.Result rlSft = paired(rlScore, sftScore, groups);
    PairedComparison.Result unSft = paired(unScore, sftScore, groups);
    PairedComparison.Result rlUn = paired(rlScore, unScore, groups);
    out.printf(Locale.ROOT, "paired by query, clustered by paper group: 95%% interval of the mean difference from %d"
        + " resamples of the groups; two-sided sign-flip test of the groups' summed differences (exact up to %d"
        + " groups with a difference, else %d sampled patterns); fixed seed%n",
        STATS.resamples(), PairedComparison.EXACT_MAX_GROUPS, STATS.signDraws());
    out.println("difference        | pairs | groups | wins/ties/losses | mean    | 95% group interval | p (sign-flip)");
    printDiff(out, "rl - sft", rlSft);
    printDiff(out, "token_mean - sft", unSft);
    printDiff(out, "rl - token_mean", rlUn);
    elapsed(out, start, "done");

    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("steps", steps);
    figures.put("queries_per_step", perStep);
    figures.put("samples", samples);
    figures.put("split", split);
    figures.put("held_out_queries", rlSft.queries());
    figures.put("held_out_groups", rlSft.groups());
    figures.put("reward_sft", round(sftScore.mean()));
    figures.put("reward_rl", round(rlScore.mean()));
    figures.put("reward_rl_unnormalised", round(unScore.mean()));
    figures.put("ci95_rl_minus_sft", java.util.Arrays.asList(round(rlSft.low()), round(rlSft.high())));
    figures.put("ci95_unnormalised_minus_sft", java.util.Arrays.asList(round(unSft.low()), round(unSft.high())));
    figures.put("ci95_rl_minus_unnormalised", java.util.Arrays.asList(round(rlUn.low()), round(rlUn.high())));
    figures.put("p_sign_rl_vs_sft", round(rlSft.p()));
    figures.put("p_sign_unnormalised_vs_sft", round(unSft.p()));
    figures.put("p_sign_rl_vs_unnormalised", round(rlUn.p()));
    figures.put("curve_rl", values(rlCurve, steps));
    figures.put("curve_rl_unnormalised", values(unCurve, steps));
    figures.put("seconds", Math.round((System.nanoTime() - start) / 1e9));
    return figures;
  }

  /** The same run with the reference trainer's objective: every node weight 1, a token mean over the batch. */
  static ArborConfig unnormalised(ArborConfig c) {
    AdvantageSettings a = c.advantages();
    LearnerSettings l = c.learner();
    return c.withAdvantages(new AdvantageSettings(AdvantageSettings.Reduction.TOKEN_MEAN, a.oneChild(), a.seed()))
        .withLearner(new LearnerSettings(l.lr(), l.weightDecay(), l.beta1(), l.beta2(), l.eps(), l.maxGradNorm(),
            l.epsClip(), l.betaKl(), "token_mean", l.microBatchTokens(), l.attentionChunk()));
  }

  /** A warehouse with active queries in the sft and train splits and a held-out one is reused. */
  private static boolean datasetReady(JobContext job) {
    Warehouse w = job.warehouse();
    if (!w.exists(Table.QUERIES)) return false;
    List<String> splits = Queries.active(w.read(Table.QUERIES)).select(Queries.SPLIT).distinct()
        .as(org.apache.spark.sql.Encoders.STRING()).collectAsList();
    return splits.contains(SplitPlan.SFT) && splits.contains(SplitPlan.TRAIN)
        && (splits.contains(SplitPlan.TEST) || splits.contains(SplitPlan.VALIDATION));
  }

  /** The test split, or validation when the dataset has no test queries. */
  private static String heldOutSplit(Warehouse w) {
    long test = Queries.active(w.read(Table.QUERIES)).where(col(Queries.SPLIT).equalTo(SplitPlan.TEST)).count();
    return test > 0 ? SplitPlan.TEST : SplitPlan.VALIDATION;
  }

  private static Scored score(JobContext job, Evaluate evaluate, String label, String run, long step, String split) {
    Warehouse w = job.warehouse();
    Evaluate.Written written = evaluate.evaluate(w, run, step, step, split);
    Map<String, Double> perQuery = new TreeMap<>();
    long unjudged = 0;
    int unscored = 0;
    for (Row row : w.read(Table.EVAL).where(col(Cols.RUN_ID).equalTo(run).and(col(Cols.STEP).equalTo(step))
            .and(col(Eval.POLICY).equalTo(PolicyKind.DJL.key())).and(col(Eval.SPLIT).equalTo(split)))
        .groupBy(Cols.QUERY_ID)
        .agg(avg(Eval.REWARD), count(when(col(Eval.REWARD).isNull(), 1)))
        .collectAsList()) {
      unjudged += row.getLong(2);
      // A query whose every tree went unjudged (an infrastructure failure) has no score to pair.
      if (row.isNullAt(1)) unscored++;
      else perQuery.put(row.getString(0), row.getDouble(1));
    }
    job.out().printf(Locale.ROOT, "%s: %s (run %s step %d): %d trees (%d unjudged), %d queries scored (%d not),"
        + " mean %.4f%n", WHO, label, run, step, written.trees(), unjudged, perQuery.size(), unscored,
        perQuery.values().stream().mapToDouble(d -> d).average().orElse(0));
    return new Scored(label, run, step, perQuery, written.trees(), unjudged, unscored);
  }

  /**
   * Every query's paper group, from the {@code queries} table: the unit the comparison resamples
   * and flips. Retired queries are read too; a query id names one query, retired or not.
   */
  private static Map<String, String> groupIds(Warehouse w) {
    Map<String, String> groups = new HashMap<>();
    for (Row row : w.read(Table.QUERIES).select(Queries.QUERY_ID, Queries.GROUP_ID).collectAsList()) {
      if (!row.isNullAt(1)) groups.put(row.getString(0), row.getString(1));
    }
    return groups;
  }

  /**
   * A against B on the queries both have a score for (in query id order, so the seeded draws
   * repeat), each under its paper group; a query with no group on record stands alone, as its own
   * group, which can only make the clustering weaker, never invent one.
   */
  private static PairedComparison.Result paired(Scored a, Scored b, Map<String, String> groups) {
    List<String> common = new ArrayList<>(a.perQuery().keySet());
    common.retainAll(b.perQuery().keySet());
    if (common.isEmpty()) {
      throw new IllegalStateException(WHO + ": " + a.label() + " and " + b.label() + " share no scored query");
    }
    String[] group = common.stream().map(q -> groups.getOrDefault(q, "query:" + q)).toArray(String[]::new);
    double[] x = common.stream().mapToDouble(q -> a.perQuery().get(q)).toArray();
    double[] y = common.stream().mapToDouble(q -> b.perQuery().get(q)).toArray();
    return STATS.compare(group, x, y);
  }

  /** The run's training reward per step, from the metrics table. */
  private static Map<Long, Double> curve(Warehouse w, String run) {
    Map<Long, Double> curve = new TreeMap<>();
    for (Row row : w.read(Table.METRICS).where(col(Cols.RUN_ID).equalTo(run).and(col(Metrics.NAME).equalTo(REWARD_MEAN)))
        .select(Cols.STEP, Metrics.VALUE).collectAsList()) {
      if (!row.isNullAt(1)) curve.put(row.getLong(0), row.getDouble(1));
    }
    return curve;
  }

  private static List<Double> values(Map<Long, Double> curve, int steps) {
    List<Double> v = new ArrayList<>();
    for (long s = 0; s < steps; s++) v.add(curve.containsKey(s) ? round(curve.get(s)) : null);
    return v;
  }

  /** Runs another job on its own configuration over this job's Spark session; a failure ends the benchmark. */
  private static void job(Job job, JobContext parent, ArborConfig config, String... args) throws Exception {
    try (JobContext sub = new JobContext(parent.job(), config, List.of(args), parent.out())) {
      if (job.run(sub) != 0) throw new IllegalStateException(WHO + ": " + String.join(" ", args) + " failed");
    }
  }

  private static void printDiff(PrintStream out, String name, PairedComparison.Result r) {
    out.printf(Locale.ROOT, "%-17s | %5d | %6d | %16s | %+.4f | [%+.4f, %+.4f]   | %.4f (%s, %d patterns)%n", name,
        r.queries(), r.groups(), r.wins() + "/" + r.ties() + "/" + r.losses(), r.meanDifference(), r.low(), r.high(),
        r.p(), r.exact() ? "exact" : "sampled", r.patterns());
  }

  private static void elapsed(PrintStream out, long start, String phase) {
    out.printf(Locale.ROOT, "%s: %s at %.0f s%n", WHO, phase, (System.nanoTime() - start) / 1e9);
  }

  private static int positive(Args args, String name, int fallback) {
    String v = args.value(name).orElse(String.valueOf(fallback));
    try {
      int n = Integer.parseInt(v);
      if (n >= 1) return n;
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageError(WHO + ": --" + name + " must be a positive whole number, got '" + v + "'");
  }

  private static String fmt(Double v) {
    return v == null ? "-" : String.format(Locale.ROOT, "%.4f", v);
  }

  private static Double round(double x) {
    // JSON has no NaN: a figure that could not be measured is null.
    return Double.isFinite(x) ? Math.round(x * 10_000) / 10_000.0 : null;
  }
}
