package arbor.jobs.bench;

import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import arbor.conf.AdvantageSettings;
import arbor.conf.ArborConfig;
import arbor.conf.LearnerSettings;
import arbor.conf.PolicyKind;
import arbor.conf.RolloutSettings;
import arbor.conf.TrainSettings;
import arbor.jobs.cli.Args;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import arbor.jobs.demo.DemoJob;
import arbor.jobs.sft.SftJob;
import arbor.jobs.train.TrainJob;
import arbor.judge.JudgeSpec;
import arbor.notebook.Charts;
import arbor.pipelines.checkpoints.CheckpointStore;
import arbor.pipelines.eval.Evaluate;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.holder.RunCheckpoints;
import arbor.policy.model.ModelConfig;
import arbor.synthesis.Queries;
import arbor.synthesis.SplitPlan;
import arbor.tables.Cols;
import arbor.tables.Eval;
import arbor.tables.Metric;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Does GRPO improve on SFT, and does the 1/k normalisation matter? Run with {@code --conf
 * learning} (the from-scratch student, the passage teacher, the toy prompts): SFT by the scripted
 * expert, then the same number of GRPO steps from that one step-0 checkpoint twice, with the
 * published tree objective and with the unnormalised one ({@code token_mean} sample weights and
 * loss), both on the same queries and tree seeds ({@code train.seed}). On one held-out split, with
 * the same seeds per query and sample for every policy: BM25's top paragraphs (the floor), the
 * expert, the SFT student and the curve of both RL students; for each difference of per-query
 * means a {@link PairedComparison}: queries of one paper group are not independent, so the
 * interval resamples paper groups and the sign-flip test flips them.
 */
final class LearningBench implements Benchmark {
  private static final String WHO = "bench learning";
  private static final int PHASES = 9;
  private static final String REWARD_MEAN = "judge.reward_mean";
  private static final PairedComparison STATS = PairedComparison.standard(20261201L);

  @Override
  public String summary() {
    return "bm25, expert, sft, grpo and unnormalised grpo: held-out judge score, group bootstrap, sign-flip test (--conf learning)";
  }

  /**
   * One evaluated policy: its run, checkpoint step, mean judge score per held-out query, and its
   * infrastructure failures: trees left unjudged, and queries with no judged tree at all (not
   * scored, so not paired: a failure is not a score of 0).
   */
  record Scored(String label, String run, long step, Map<String, Double> perQuery, long trees,
      long unjudgedTrees, int unscoredQueries) {
    double mean() {
      return perQuery.values().stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }
  }

  /**
   * One student of the recipe (replicate {@code index}): its runs, its student seed, the held-out
   * scores of both arms at each curve step (step 0 is its SFT student) and their training reward.
   */
  record Replicate(int index, long studentSeed, String sftRun, String rlRun, String unRun,
      Map<Long, Scored> rlCurve, Map<Long, Scored> unCurve, Map<Long, Double> rlTrain, Map<Long, Double> unTrain) {
    Scored sft() {
      return rlCurve.get(0L);
    }
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    Args args = Args.parse(WHO, ctx.args(), Set.of("resume"), Set.of("steps", "queries-per-step", "samples", "eval-samples",
        "eval-every", "split", "tag", "k", "replicates"));
    if (!args.positionals().isEmpty()) throw new UsageError(WHO + ": unexpected argument(s) " + args.positionals());
    int steps = positive(args, "steps", 3);
    int perStep = positive(args, "queries-per-step", 4);
    int samples = positive(args, "samples", 4);
    int evalSamples = positive(args, "eval-samples", samples);
    int evalEvery = positive(args, "eval-every", steps);
    int k = positive(args, "k", 3);
    int replicates = positive(args, "replicates", 1);
    // A run of this tag that stopped part way (killed, out of memory) goes on from what it finished.
    boolean resume = args.flag("resume");
    String tag = args.value("tag").orElse(LocalDateTime.now().format(DateTimeFormatter.ofPattern("MMdd-HHmmss")));
    ArborConfig c = ctx.config();
    if (c.policy().djl().modelDir() == null || c.policy().djl().modelDir().isBlank()) {
      throw new UsageError(WHO + ": policy.djl.model_dir is not set; run it as bin/arbor bench learning --conf learning"
          + " (the from-scratch student), or set it to a Hugging Face folder");
    }
    RolloutSettings r = c.rollouts();
    TrainSettings t = c.train();
    String prefix = "learning-" + tag;
    // One train.seed for both arms: the same queries at each step and the same tree seeds, so
    // that the arms differ by their objective alone.
    ArborConfig tree = c.withRollouts(new RolloutSettings(PolicyKind.DJL, samples, r.treesPerTask(),
            r.maxInfraFailureFraction(), r.sandbox()))
        .withTrain(new TrainSettings(steps, perStep, 0, t.progressSeconds(), prefix));
    ArborConfig evalExpert = tree.withRollouts(new RolloutSettings(PolicyKind.SCRIPTED, evalSamples, r.treesPerTask(),
        r.maxInfraFailureFraction(), r.sandbox()));
    String expertRun = prefix + "-expert";
    List<Long> points = curvePoints(steps, evalEvery);

    PrintStream out = ctx.out();
    long start = System.nanoTime();
    JobContext job = ctx.job();
    out.printf(Locale.ROOT, "%s: %d student(s) of the recipe (replicates), each: SFT, then %d GRPO steps of %d"
        + " queries x %d samples per arm; run names %s[-rN]-sft, -rl, -unnorm; held-out evaluation of %d samples per"
        + " query at steps %s (common seeds for every policy); %d cores%n",
        WHO, replicates, steps, perStep, samples, prefix, evalSamples, points, Runtime.getRuntime().availableProcessors());
    if (!datasetReady(job)) {
      if (!DemoJob.dataset(job, WHO, PHASES)) throw new IllegalStateException(WHO + ": the demo dataset came out empty");
    } else {
      out.printf("== %s 1-3/%d: reusing the dataset in %s%n", WHO, PHASES, job.warehouse().root());
      DemoJob.printSplits(job);
    }
    String split = args.value("split").orElse(heldOutSplit(job.warehouse()));
    leakage(job.warehouse(), split);
    elapsed(out, start, "dataset");

    CheckpointStore store = new CheckpointStore(ctx.spark(), job.warehouse(), c.checkpoints());
    List<Replicate> reps = new ArrayList<>();
    ModelConfig student = null;
    for (int i = 0; i < replicates; i++) {
      ArborConfig rep = replicate(tree, i);
      String name = i == 0 ? prefix : prefix + "-r" + i;
      String of = replicates == 1 ? "" : String.format(Locale.ROOT, " (replicate %d of %d)", i + 1, replicates);
      try (JobContext sub = new JobContext(job.job(), rep, List.of(), out)) {
        student = DemoJob.student(sub, WHO + of, 4, PHASES);
      }
      reps.add(trainAndScore(job, store, rep, name, of, i, split, evalSamples, points, start, resume));
    }

    out.printf("== %s 8/%d: held-out evaluation of the floor and the teacher on the %s split, %d samples per query,"
        + " the students' seeds%n", WHO, PHASES, split, evalSamples);
    Map<String, Double> bm25 = Bm25Floor.rewards(job.warehouse(), split, k, JudgeSpec.resolve(c.judge(), System.getenv()));
    Scored bm25Score = new Scored("bm25 top-" + k, "-", 0, bm25, bm25.size(), 0, 0);
    out.printf(Locale.ROOT, "%s: bm25 top-%d paragraphs: %d queries judged, mean %.4f%n", WHO, k, bm25.size(),
        bm25Score.mean());
    Scored expertScore = score(job, new Evaluate(evalExpert, null, job.apiKeys()),
        PolicyKind.SCRIPTED, "expert", expertRun, 0, split, resume);
    elapsed(out, start, "eval expert");

    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("steps", steps);
    figures.put("queries_per_step", perStep);
    figures.put("samples", samples);
    figures.put("eval_samples", evalSamples);
    figures.put("replicates", replicates);
    figures.put("split", split);
    results(out, figures, split, steps, reps, bm25Score, expertScore, groupIds(job.warehouse()),
        Path.of("reports", prefix, "learning_curve.png"));
    elapsed(out, start, "done");
    figures.put("student_params", student.parameters());
    Replicate first = reps.get(0);
    figures.put("sft_tokens_per_s", round(metric(job.warehouse(), first.sftRun(), "sft.tokens_per_s")));
    figures.put("train_tokens_per_s", round(metric(job.warehouse(), first.rlRun(), "learner.tokens")
        / metric(job.warehouse(), first.rlRun(), "learner.seconds")));
    figures.put("seconds", Math.round((System.nanoTime() - start) / 1e9));
    return figures;
  }

  /**
   * Phase 9: the tables, the paired comparisons (pooled over the replicates, each replicate's own
   * difference and the replicate-and-group interval when there are several), the held-out curve
   * drawn to {@code png}, and their BENCH figures added to {@code figures}.
   */
  static void results(PrintStream out, Map<String, Object> figures, String split, int steps, List<Replicate> reps,
      Scored bm25Score, Scored expertScore, Map<String, String> groups, Path png) throws java.io.IOException {
    int replicates = reps.size();
    out.printf("== %s 9/%d: results%n", WHO, PHASES);
    for (Replicate rep : reps) {
      out.printf("training reward (judge.reward_mean of the step's rollouts; not evidence of learning)%s%n",
          replicates == 1 ? "" : ", replicate " + (rep.index() + 1) + " (student seed " + rep.studentSeed() + ")");
      out.println("step | rl (tree) | rl (token_mean)");
      for (long s = 0; s < steps; s++) {
        out.printf(Locale.ROOT, "%4d | %9s | %15s%n", s, fmt(rep.rlTrain().get(s)), fmt(rep.unTrain().get(s)));
      }
    }
    Map<Long, Scored> rlCurve = pooledCurve(reps, Replicate::rlCurve, "rl (tree)");
    Map<Long, Scored> unCurve = pooledCurve(reps, Replicate::unCurve, "rl (token_mean)");
    out.printf("held-out curve (%s split): mean judge score per query, averaged over queries%s%n", split,
        replicates == 1 ? "" : " and over the " + replicates + " replicates");
    out.println("step | rl (tree) | rl (token_mean)");
    for (long s : rlCurve.keySet()) {
      out.printf(Locale.ROOT, "%4d | %9.4f | %15.4f%n", s, rlCurve.get(s).mean(), unCurve.get(s).mean());
    }
    Scored sftScore = rlCurve.get(0L);
    Scored rlScore = rlCurve.get((long) steps);
    Scored unScore = unCurve.get((long) steps);
    out.printf("held-out (%s split) at the end%n", split);
    out.println("policy          | run                        | step | queries | trees | score");
    List<Scored> measured = new ArrayList<>(List.of(bm25Score, expertScore));
    for (Replicate rep : reps) {
      measured.addAll(List.of(rep.sft(), rep.rlCurve().get((long) steps), rep.unCurve().get((long) steps)));
    }
    List<Scored> all = new ArrayList<>(measured);
    if (replicates > 1) all.addAll(List.of(sftScore, rlScore, unScore));
    for (Scored s : all) {
      out.printf(Locale.ROOT, "%-15s | %-26s | %4d | %7d | %5d | %.4f%n", s.label(), s.run(), s.step(),
          s.perQuery().size(), s.trees(), s.mean());
    }
    for (Scored s : measured) {
      if (s.unjudgedTrees() > 0) {
        out.printf(Locale.ROOT, "infrastructure failures, %s (%s): %d unjudged trees, %d queries with no judged tree"
            + " (left out of its pairs)%n", s.label(), s.run(), s.unjudgedTrees(), s.unscoredQueries());
      }
    }
    PairedComparison.Replicated rlSft = replicated(reps, Replicate::rlCurve, Replicate::rlCurve, steps, 0, groups);
    PairedComparison.Replicated unSft = replicated(reps, Replicate::unCurve, Replicate::rlCurve, steps, 0, groups);
    PairedComparison.Replicated rlUn = replicated(reps, Replicate::rlCurve, Replicate::unCurve, steps, steps, groups);
    PairedComparison.Result sftExpert = paired(sftScore, expertScore, groups);
    PairedComparison.Result expertBm25 = paired(expertScore, bm25Score, groups);
    out.printf(Locale.ROOT, "paired by query, clustered by paper group: 95%% interval of the mean difference from %d"
        + " resamples of the groups; two-sided sign-flip test of the groups' summed differences (exact up to %d"
        + " groups with a difference, else %d sampled patterns); fixed seed%s%n",
        STATS.resamples(), PairedComparison.EXACT_MAX_GROUPS, STATS.signDraws(),
        replicates == 1 ? "" : "; a student's score is its mean over the " + replicates + " replicates");
    out.println("difference        | pairs | groups | wins/ties/losses | mean    | 95% group interval | p (sign-flip)");
    printDiff(out, "rl - sft", rlSft.pooled());
    printDiff(out, "token_mean - sft", unSft.pooled());
    printDiff(out, "rl - token_mean", rlUn.pooled());
    printDiff(out, "sft - expert", sftExpert);
    printDiff(out, "expert - bm25", expertBm25);
    if (replicates > 1) {
      out.printf("over the %d replicates: each one's mean difference, and the 95%% interval when the replicates are"
          + " resampled as well as the groups (the spread between trained students included)%n", replicates);
      out.println("difference        | per replicate                  | 95% replicate-and-group interval");
      printReplicated(out, "rl - sft", rlSft);
      printReplicated(out, "token_mean - sft", unSft);
      printReplicated(out, "rl - token_mean", rlUn);
    }
    plot(png, split, rlCurve, unCurve, expertScore, bm25Score);
    out.printf("%s: held-out curve %s%n", WHO, png.toAbsolutePath());
    figures.put("held_out_queries", rlSft.pooled().queries());
    figures.put("held_out_groups", rlSft.pooled().groups());
    figures.put("reward_bm25", round(bm25Score.mean()));
    figures.put("reward_expert", round(expertScore.mean()));
    figures.put("reward_sft", round(sftScore.mean()));
    figures.put("reward_rl", round(rlScore.mean()));
    figures.put("reward_rl_unnormalised", round(unScore.mean()));
    figures.put("sft_over_expert", expertScore.mean() > 0 ? round(sftScore.mean() / expertScore.mean()) : null);
    figures.put("ci95_rl_minus_sft", interval(rlSft.pooled()));
    figures.put("ci95_unnormalised_minus_sft", interval(unSft.pooled()));
    figures.put("ci95_rl_minus_unnormalised", interval(rlUn.pooled()));
    figures.put("ci95_expert_minus_bm25", interval(expertBm25));
    figures.put("p_sign_rl_vs_sft", round(rlSft.pooled().p()));
    figures.put("p_sign_unnormalised_vs_sft", round(unSft.pooled().p()));
    figures.put("p_sign_rl_vs_unnormalised", round(rlUn.pooled().p()));
    figures.put("ties_rl_vs_sft", rlSft.pooled().ties());
    if (replicates > 1) {
      figures.put("student_seeds", reps.stream().map(Replicate::studentSeed).toList());
      figures.put("rl_minus_sft_replicates", rounded(rlSft.perReplicate()));
      figures.put("unnormalised_minus_sft_replicates", rounded(unSft.perReplicate()));
      figures.put("ci95_rl_minus_sft_replicates", interval(rlSft.low(), rlSft.high()));
      figures.put("ci95_unnormalised_minus_sft_replicates", interval(unSft.low(), unSft.high()));
      figures.put("ci95_rl_minus_unnormalised_replicates", interval(rlUn.low(), rlUn.high()));
    }
    figures.put("unjudged_trees", measured.stream().mapToLong(Scored::unjudgedTrees).sum());
    figures.put("curve_steps", new ArrayList<>(rlCurve.keySet()));
    figures.put("heldout_curve_rl", rlCurve.values().stream().map(s -> round(s.mean())).toList());
    figures.put("heldout_curve_rl_unnormalised", unCurve.values().stream().map(s -> round(s.mean())).toList());
    figures.put("curve_rl", meanCurve(reps, Replicate::rlTrain, steps));
    figures.put("curve_rl_unnormalised", meanCurve(reps, Replicate::unTrain, steps));
  }

  /**
   * Replicate {@code i} of the recipe: the first is the configuration as given; each other one
   * draws its own student (weights seed) into its own folder beside the configured one, its own
   * SFT batch order and held-out draw, and its own GRPO queries and tree seeds. The teacher's
   * traces and the held-out seeds are the same for all, so replicates differ by the training's
   * randomness alone.
   */
  static ArborConfig replicate(ArborConfig c, int i) {
    if (i == 0) return c;
    TrainSettings t = c.train();
    return c.withSetup(c.setup().withStudent(c.setup().student().withSeed(c.setup().student().seed() + i)))
        .withPolicy(c.policy().withModelDir(c.policy().djl().modelDir() + "-r" + i))
        .withSft(c.sft().withSeed(c.sft().seed() + i))
        .withTrain(t.withSeed(t.seed() + "-r" + i));
  }

  /**
   * Phases 5-8 for one replicate: SFT from the student in {@code tree}'s folder, both GRPO arms
   * from its step-0 checkpoint, their held-out curve. With {@code resume}, an SFT checkpoint on
   * record is kept, an arm goes on from its latest checkpoint, and an evaluation on record is
   * read, not run again (each is written in one commit, so one on record is whole).
   */
  private Replicate trainAndScore(JobContext job, CheckpointStore store, ArborConfig tree,
      String name, String of, int index, String split, int evalSamples, List<Long> points, long start,
      boolean resume) throws Exception {
    PrintStream out = job.out();
    String sftRun = name + "-sft";
    String rlRun = name + "-rl";
    String unRun = name + "-unnorm";
    out.printf("== %s 5/%d%s: sft (the scripted expert on the sft split) under run %s%n", WHO, PHASES, of, sftRun);
    if (resume && store.latest(sftRun).isPresent()) {
      out.printf("%s: --resume: run %s has its SFT checkpoint; kept%n", WHO, sftRun);
    } else {
      job(new SftJob(), job, tree, "--run", sftRun);
    }
    Checkpoint sft = store.load(sftRun, 0);
    for (String run : List.of(rlRun, unRun)) {
      if (resume && store.latest(run).isPresent()) continue;
      store.save(new Checkpoint(run, 0, sft.weights(), sft.optimizer(), sft.rng(), sft.files()));
    }
    elapsed(out, start, "sft" + of);

    out.printf("== %s 6/%d%s: GRPO, the tree objective (1/k child weights), run %s%n", WHO, PHASES, of, rlRun);
    job(new TrainJob(), job, tree, train(rlRun, resume));
    elapsed(out, start, "grpo (tree)" + of);
    out.printf("== %s 7/%d%s: GRPO, the unnormalised objective (token_mean), run %s%n", WHO, PHASES, of, unRun);
    job(new TrainJob(), job, unnormalised(tree), train(unRun, resume));
    elapsed(out, start, "grpo (token_mean)" + of);

    out.printf("== %s 8/%d%s: held-out evaluation of the students on the %s split, %d samples per query, the same"
        + " seeds for every policy%n", WHO, PHASES, of, split, evalSamples);
    RolloutSettings r = tree.rollouts();
    ArborConfig evalDjl = tree.withRollouts(new RolloutSettings(PolicyKind.DJL, evalSamples, r.treesPerTask(),
        r.maxInfraFailureFraction(), r.sandbox()));
    Evaluate evaluate = new Evaluate(evalDjl, new RunCheckpoints(store.source()), job.apiKeys());
    Scored sftScore = score(job, evaluate, PolicyKind.DJL, "sft", sftRun, 0, split, resume);
    elapsed(out, start, "eval sft" + of);
    Map<Long, Scored> rlCurve = new TreeMap<>(Map.of(0L, sftScore));
    Map<Long, Scored> unCurve = new TreeMap<>(Map.of(0L, sftScore));
    for (long step : points) {
      if (step == 0) continue;
      rlCurve.put(step, score(job, evaluate, PolicyKind.DJL, "rl (tree)", rlRun, step, split, resume));
      unCurve.put(step, score(job, evaluate, PolicyKind.DJL, "rl (token_mean)", unRun, step, split, resume));
      elapsed(out, start, "eval step " + step + of);
    }
    return new Replicate(index, tree.setup().student().seed(), sftRun, rlRun, unRun, rlCurve, unCurve,
        curve(job.warehouse(), rlRun), curve(job.warehouse(), unRun));
  }

  /**
   * The replicates' curve as one student's: at each step, every query's mean over the replicates
   * (the queries all of them scored); one replicate's curve is itself.
   */
  private static Map<Long, Scored> pooledCurve(List<Replicate> reps, Function<Replicate, Map<Long, Scored>> arm,
      String label) {
    if (reps.size() == 1) return arm.apply(reps.get(0));
    Map<Long, Scored> pooled = new TreeMap<>();
    for (long step : arm.apply(reps.get(0)).keySet()) {
      List<Scored> each = reps.stream().map(rep -> arm.apply(rep).get(step)).toList();
      Map<String, Double> perQuery = new TreeMap<>();
      for (String q : commonQueries(each)) {
        perQuery.put(q, each.stream().mapToDouble(s -> s.perQuery().get(q)).average().orElseThrow());
      }
      pooled.put(step, new Scored((step == 0 ? "sft" : label) + " (mean)", "mean of " + reps.size() + " replicates",
          step, perQuery, each.stream().mapToLong(Scored::trees).sum(),
          each.stream().mapToLong(Scored::unjudgedTrees).sum(), each.stream().mapToInt(Scored::unscoredQueries).sum()));
    }
    return pooled;
  }

  /** The queries every one of {@code scores} has a score for, in query id order. */
  private static List<String> commonQueries(List<Scored> scores) {
    List<String> common = new ArrayList<>(new TreeMap<>(scores.get(0).perQuery()).keySet());
    for (Scored s : scores) common.retainAll(s.perQuery().keySet());
    return common;
  }

  /** Arm A at step {@code stepA} against arm B at step {@code stepB}, over every replicate. */
  private static PairedComparison.Replicated replicated(List<Replicate> reps, Function<Replicate, Map<Long, Scored>> a,
      Function<Replicate, Map<Long, Scored>> b, long stepA, long stepB, Map<String, String> groups) {
    List<Scored> as = reps.stream().map(rep -> a.apply(rep).get(stepA)).toList();
    List<Scored> bs = reps.stream().map(rep -> b.apply(rep).get(stepB)).toList();
    List<Scored> both = new ArrayList<>(as);
    both.addAll(bs);
    List<String> common = commonQueries(both);
    if (common.isEmpty()) throw new IllegalStateException(WHO + ": the students share no scored query");
    String[] group = common.stream().map(q -> groups.getOrDefault(q, "query:" + q)).toArray(String[]::new);
    double[][] x = as.stream().map(s -> common.stream().mapToDouble(q -> s.perQuery().get(q)).toArray())
        .toArray(double[][]::new);
    double[][] y = bs.stream().map(s -> common.stream().mapToDouble(q -> s.perQuery().get(q)).toArray())
        .toArray(double[][]::new);
    return STATS.compareReplicates(group, x, y);
  }

  /** The replicates' training reward per step, averaged over those that have the step. */
  private static List<Double> meanCurve(List<Replicate> reps, Function<Replicate, Map<Long, Double>> arm, int steps) {
    List<Double> v = new ArrayList<>();
    for (long s = 0; s < steps; s++) {
      long step = s;
      var m = reps.stream().map(arm).filter(c -> c.containsKey(step)).mapToDouble(c -> c.get(step)).average();
      v.add(m.isPresent() ? round(m.getAsDouble()) : null);
    }
    return v;
  }

  /** The steps the held-out curve is measured at: 0 (the SFT student), every {@code every}, and the last. */
  static List<Long> curvePoints(int steps, int every) {
    List<Long> points = new ArrayList<>();
    for (long s = 0; s < steps; s += every) points.add(s);
    points.add((long) steps);
    return points;
  }

  /**
   * Refuses a held-out split that shares a paper group with the sft or train split: its scores
   * would measure memory, not what was learned.
   */
  private static void leakage(Warehouse w, String split) {
    Dataset<Row> active = Queries.active(w.read(Table.QUERIES));
    Dataset<Row> heldOut = active.where(col(Queries.SPLIT).equalTo(split)).select(Queries.GROUP_ID).distinct();
    Dataset<Row> seen = active.where(col(Queries.SPLIT).isin(SplitPlan.SFT, SplitPlan.TRAIN)).select(Queries.GROUP_ID)
        .distinct();
    List<Row> shared = heldOut.intersect(seen).limit(5).collectAsList();
    if (!shared.isEmpty()) {
      throw new IllegalStateException(WHO + ": the " + split + " split shares paper groups with sft or train (" + shared
          + "); a held-out score would not be held out");
    }
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

  /** The train job's arguments for {@code run}: with {@code resume}, it goes on from its latest checkpoint. */
  private static String[] train(String run, boolean resume) {
    return resume ? new String[] {"--run", run, "--resume"} : new String[] {"--run", run};
  }

  private static Scored score(JobContext job, Evaluate evaluate, PolicyKind policy, String label, String run, long step,
      String split, boolean resume) {
    Warehouse w = job.warehouse();
    Column mine = col(Cols.RUN_ID).equalTo(run).and(col(Cols.STEP).equalTo(step))
        .and(col(Eval.POLICY).equalTo(policy.key())).and(col(Eval.SPLIT).equalTo(split));
    long trees = resume && w.exists(Table.EVAL) ? w.read(Table.EVAL).where(mine).count() : 0;
    if (trees > 0) {
      job.out().printf("%s: --resume: %s (run %s step %d) is evaluated on record; read, not run again%n", WHO, label,
          run, step);
    } else {
      trees = evaluate.evaluate(w, run, step, step, split).trees();
    }
    Map<String, Double> perQuery = new TreeMap<>();
    long unjudged = 0;
    int unscored = 0;
    for (Row row : w.read(Table.EVAL).where(mine)
        .groupBy(Cols.QUERY_ID)
        .agg(avg(Eval.REWARD), count(when(col(Eval.REWARD).isNull(), 1)))
        .collectAsList()) {
      unjudged += row.getLong(2);
      // A query whose every tree went unjudged (an infrastructure failure) has no score to pair.
      if (row.isNullAt(1)) unscored++;
      else perQuery.put(row.getString(0), row.getDouble(1));
    }
    job.out().printf(Locale.ROOT, "%s: %s (run %s step %d): %d trees (%d unjudged), %d queries scored (%d not),"
        + " mean %.4f%n", WHO, label, run, step, trees, unjudged, perQuery.size(), unscored,
        perQuery.values().stream().mapToDouble(d -> d).average().orElse(0));
    return new Scored(label, run, step, perQuery, trees, unjudged, unscored);
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

  /** The sum of metric {@code name} over the run's steps (NaN when it has none). */
  private static double metric(Warehouse w, String run, String name) {
    Row row = w.read(Table.METRICS).where(col(Cols.RUN_ID).equalTo(run).and(col(Metric.NAME).equalTo(name)))
        .agg(sum(Metric.VALUE)).first();
    return row.isNullAt(0) ? Double.NaN : row.getDouble(0);
  }

  private static List<Double> interval(PairedComparison.Result r) {
    return interval(r.low(), r.high());
  }

  /** [low, high] rounded for JSON; a bound that could not be measured is null. */
  private static List<Double> interval(double low, double high) {
    return Arrays.asList(round(low), round(high));
  }

  /** The held-out curves of both arms, with the expert and BM25 as flat lines across them. */
  private static Path plot(Path file, String split, Map<Long, Scored> rl, Map<Long, Scored> un, Scored expert,
      Scored bm25) throws java.io.IOException {
    List<Double> x = rl.keySet().stream().map(Long::doubleValue).toList();
    List<Double> ends = List.of(x.get(0), x.get(x.size() - 1));
    List<Charts.Series> series = List.of(
        new Charts.Series("rl (tree)", x, rl.values().stream().map(Scored::mean).toList()),
        new Charts.Series("rl (token_mean)", x, un.values().stream().map(Scored::mean).toList()),
        new Charts.Series("expert", ends, List.of(expert.mean(), expert.mean())),
        new Charts.Series("bm25", ends, List.of(bm25.mean(), bm25.mean())));
    Files.createDirectories(file.getParent());
    Files.write(file, Charts.lines("Held-out judge score (" + split + " split); step 0 is the SFT student",
        "GRPO step", "mean judge score", series).bytes());
    return file;
  }

  /** The run's training reward per step, from the metrics table. */
  private static Map<Long, Double> curve(Warehouse w, String run) {
    Map<Long, Double> curve = new TreeMap<>();
    for (Row row : w.read(Table.METRICS).where(col(Cols.RUN_ID).equalTo(run).and(col(Metric.NAME).equalTo(REWARD_MEAN)))
        .select(Cols.STEP, Metric.VALUE).collectAsList()) {
      if (!row.isNullAt(1)) curve.put(row.getLong(0), row.getDouble(1));
    }
    return curve;
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

  private static void printReplicated(PrintStream out, String name, PairedComparison.Replicated r) {
    String each = Arrays.stream(r.perReplicate()).mapToObj(d -> String.format(Locale.ROOT, "%+.4f", d))
        .collect(Collectors.joining(" "));
    out.printf(Locale.ROOT, "%-17s | %-30s | [%+.4f, %+.4f]%n", name, each, r.low(), r.high());
  }

  private static List<Double> rounded(double[] values) {
    return Arrays.stream(values).mapToObj(LearningBench::round).toList();
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
