package arbor.pipelines.training;

import static org.apache.spark.sql.functions.col;

import arbor.conf.ApiKeys;
import arbor.conf.ArborConfig;
import arbor.judge.JudgeSpec;
import arbor.pipelines.advantages.Advantages;
import arbor.pipelines.checkpoints.CheckpointStore;
import arbor.pipelines.judge.Judge;
import arbor.pipelines.judge.References;
import arbor.pipelines.learner.Learner;
import arbor.pipelines.learner.LearnerStepResult;
import arbor.pipelines.metrics.StepMetrics;
import arbor.pipelines.progress.TaskCount;
import arbor.pipelines.rollouts.Rollouts;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.policy.checkpoint.AdamWStates;
import arbor.policy.holder.CheckpointSource;
import arbor.policy.model.PolicyModel;
import arbor.progress.Progress;
import arbor.progress.Tally;
import arbor.tables.Cols;
import arbor.tables.Metric;
import arbor.tables.RolloutNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * One training step of a run, each phase a call into its stage, every result in Delta:
 * rollouts at policy version {@code s} -> rewards -> samples -> one learner step on the driver
 * -> metrics -> checkpoint step {@code s + 1} (the new policy version). Every write replaces
 * the step's rows, so a step rerun after a crash leaves one copy of each; the checkpoint comes
 * last, so a step is complete exactly when its checkpoint exists. Phase timings go to
 * {@code metrics} as {@code train.seconds_<phase>} (rollouts, judge, advantages, learner).
 *
 * <p>Version numbering: checkpoint step {@code v} of a run holds policy version {@code v}, the
 * weights after {@code v} learner steps; version 0 is the run's initial weights. Training step
 * {@code s} rolls out version {@code s} and writes version {@code s + 1}.
 */
public final class TrainingStep {
  private final ArborConfig config;
  private final Warehouse warehouse;
  private final CheckpointStore checkpoints;
  private final Learner learner;
  private final PolicyModel policy;
  private final String runId;
  private final CheckpointSource executors;
  private final ApiKeys keys;
  private final Judge judge;
  private final Advantages advantages;
  private final Consumer<String> console;

  /** What a step did: its figures (the metrics rows it wrote) and the seconds of each phase. */
  public record Report(long step, long policyVersion, Map<String, Double> figures, Map<String, Double> seconds) {
    public double figure(String name) {
      return figures.getOrDefault(name, Double.NaN);
    }
  }

  /**
   * @param executors where the executors load the run's policy versions (the checkpoints table)
   * @param policy the learner's policy (trained in place), saved with its tokenizer files
   * @param keys the API keys of an endpoint judge or policy (read by the job)
   */
  public TrainingStep(ArborConfig config, Warehouse warehouse, CheckpointStore checkpoints, CheckpointSource executors,
      Learner learner, PolicyModel policy, String runId, ApiKeys keys, Consumer<String> console) {
    this.config = config;
    this.warehouse = warehouse;
    this.checkpoints = checkpoints;
    this.learner = learner;
    this.policy = policy;
    this.runId = runId;
    this.console = console;
    this.executors = executors;
    this.keys = keys;
    this.judge = new Judge(JudgeSpec.resolve(config.judge(), keys.byVariable()));
    this.advantages = new Advantages(config.advantages(), config.rlm().maxDepth());
  }

  /** Runs step {@code step} at policy version {@code step}; returns what it wrote. */
  public Report run(long step) {
    long version = step;
    Map<String, Double> seconds = new LinkedHashMap<>();
    String seedKey = config.train().seedKey(runId);
    Dataset<Row> queries = StepQueries.of(warehouse.read(Table.QUERIES), seedKey, step, config.train().queriesPerStep()).cache();
    Dataset<Row> groups = warehouse.read(Table.PAPER_GROUPS);
    Dataset<Row> papers = warehouse.read(Table.PAPERS);
    Dataset<Row> references = References.of(queries, groups, papers).cache();
    try {
      String phase = "step " + (step + 1) + " ";
      timed(seconds, "rollouts", () -> {
        Rollouts rollouts = new Rollouts(config).withCheckpoints(executors).withKeys(keys)
            .withProgress(phase + "rollouts", console);
        rollouts.write(warehouse, rollouts.tasks(queries, groups, papers, Rollouts.Step.of(runId, step, version)
            .seededAs(seedKey, step)));
      });
      Dataset<Row> nodes = stepRows(Table.ROLLOUT_NODES, step).cache();
      Dataset<Row> turns = stepRows(Table.ROLLOUT_TURNS, step);
      timed(seconds, "judge", () -> {
        TaskCount judged = TaskCount.register(queries.sparkSession(), "judge.trees");
        long roots = nodes.where(col(RolloutNode.PARENT_ID).isNull()).count();
        try (var p = progress(phase + "judge", "trees", judged::done, () -> roots)) {
          warehouse.replaceStep(Table.REWARDS, runId, step, judged.counting(judge.transform(nodes, references)));
        }
      });
      Dataset<Row> rewards = stepRows(Table.REWARDS, step).cache();
      timed(seconds, "advantages", () -> warehouse.replaceStep(Table.SAMPLES, runId, step,
          advantages.samples(nodes, turns, rewards)));
      LearnerStepResult[] learned = new LearnerStepResult[1];
      // The learner reads the samples back from Delta: a fixed input, read twice.
      timed(seconds, "learner", () -> {
        Tally tokens = new Tally();
        try (var p = progress(phase + "learner", "tokens", tokens::done, tokens::total)) {
          learned[0] = learner.step(stepRows(Table.SAMPLES, step), runId, step, tokens);
        }
      });
      // A few dozen rows from a plan of many small aggregations: computed once, on the driver,
      // then written from there and read for the console (not recomputed for each).
      List<Row> metrics = new ArrayList<>();
      timed(seconds, "metrics", () -> {
        metrics.addAll(StepMetrics.of(nodes, rewards, references, advantages.rootAdvantages(nodes, rewards))
            .unionByName(learned[0].metrics())
            .unionByName(timings(queries.sparkSession(), step, version, seconds))
            .collectAsList());
        // sft files its figures (sft.*) under the run's step 0: a step replaces only its own.
        warehouse.replaceWhere(Table.METRICS, Metric.stepRows(runId, step),
            queries.sparkSession().createDataFrame(metrics, Metric.SCHEMA));
      });
      // The checkpoint is the step's last write, its commit point: once version s + 1 exists,
      // every row of step s does too, and a resume starts after it. (So its own seconds are
      // on the console, not in metrics.)
      timed(seconds, "checkpoint", () -> checkpoints.save(runId, step + 1, policy,
          AdamWStates.toOptimizerState(learner.optimizer().exportState()), new byte[0], Map.of()));
      Map<String, Double> figures = new LinkedHashMap<>();
      for (Row row : metrics) {
        Metric m = Metric.of(row);
        figures.put(m.name(), m.value());
      }
      nodes.unpersist();
      rewards.unpersist();
      return new Report(step, version, figures, seconds);
    } finally {
      queries.unpersist();
      references.unpersist();
    }
  }

  /** The step's console line: reward, KL, clip fraction, children per root, seconds per phase. */
  public static String line(Report r, long steps) {
    StringBuilder s = new StringBuilder(String.format("step %d/%d (policy v%d): reward %.3f  kl %.4g  clip %.3f  children/root %.2f |",
        r.step() + 1, steps, r.policyVersion(), r.figure("judge.reward_mean"), r.figure("learner.kl"),
        r.figure("learner.clip_fraction"), r.figure("rollouts.children_per_root")));
    r.seconds().forEach((phase, sec) -> s.append(String.format(" %s %.1fs", phase, sec)));
    return s.toString();
  }

  private Progress progress(String label, String unit, LongSupplier done, LongSupplier total) {
    return Progress.start(label, unit, done, total, config.train().progressSeconds(), console);
  }

  private Dataset<Row> stepRows(Table table, long step) {
    return warehouse.read(table).where(col(Cols.RUN_ID).equalTo(runId).and(col(Cols.STEP).equalTo(step)));
  }

  private Dataset<Row> timings(org.apache.spark.sql.SparkSession spark, long step, long version, Map<String, Double> seconds) {
    Map<String, Double> figures = new LinkedHashMap<>();
    seconds.forEach((phase, sec) -> figures.put("train.seconds_" + phase, sec));
    figures.put("train.policy_version", (double) version);
    return spark.createDataFrame(Metric.rows(runId, step, figures), Metric.SCHEMA);
  }

  private static void timed(Map<String, Double> seconds, String phase, Runnable r) {
    long t = System.nanoTime();
    r.run();
    seconds.put(phase, (System.nanoTime() - t) / 1e9);
  }
}
