package arbor.conf;

import java.io.Serializable;

/**
 * The whole configuration tree, loaded once at job start from {@code conf/defaults.conf}, the
 * profiles and {@code --set} overrides, then passed down. Keys are the snake_case forms of the
 * component names ({@code dataDir} is {@code data_dir}).
 *
 * @param warehouse root of every Delta table: a local folder or any Hadoop URI
 * @param dataDir where {@code setup} caches downloads and local runs keep temp files
 * @param policy the settings of the policies that need any (djl, openai, anthropic, replay)
 * @param rollouts the rollout stage of a training step
 * @param learner the driver-side learner (objective, AdamW, micro-batches)
 * @param checkpoints the layout of the checkpoints table
 * @param judge how roots are judged (the rewards table)
 * @param advantages how group advantages become sample weights (the samples table)
 * @param sft cold-start SFT on a teacher's traces (the run's step-0 checkpoint)
 * @param train the {@code train} job's loop (steps, queries per step, evaluation cadence)
 */
public record ArborConfig(
    String warehouse,
    String dataDir,
    SparkSettings spark,
    IngestSettings ingest,
    SetupSettings setup,
    PolicySettings policy,
    SynthesisSettings synthesis,
    ReplSettings repl,
    SandboxSettings sandbox,
    RlmSettings rlm,
    RolloutSettings rollouts,
    LearnerSettings learner,
    CheckpointSettings checkpoints,
    JudgeSettings judge,
    AdvantageSettings advantages,
    SftSettings sft,
    TrainSettings train) implements Serializable {

  /** The same configuration over another warehouse (benchmarks and tests write to scratch ones). */
  public ArborConfig withWarehouse(String root) {
    return new ArborConfig(root, dataDir, spark, ingest, setup, policy, synthesis, repl, sandbox, rlm, rollouts, learner,
        checkpoints, judge, advantages, sft, train);
  }

  public ArborConfig withPolicy(PolicySettings p) {
    return new ArborConfig(warehouse, dataDir, spark, ingest, setup, p, synthesis, repl, sandbox, rlm, rollouts, learner,
        checkpoints, judge, advantages, sft, train);
  }

  public ArborConfig withRlm(RlmSettings r) {
    return new ArborConfig(warehouse, dataDir, spark, ingest, setup, policy, synthesis, repl, sandbox, r, rollouts, learner,
        checkpoints, judge, advantages, sft, train);
  }

  public ArborConfig withRollouts(RolloutSettings r) {
    return new ArborConfig(warehouse, dataDir, spark, ingest, setup, policy, synthesis, repl, sandbox, rlm, r, learner,
        checkpoints, judge, advantages, sft, train);
  }

  public ArborConfig withLearner(LearnerSettings l) {
    return new ArborConfig(warehouse, dataDir, spark, ingest, setup, policy, synthesis, repl, sandbox, rlm, rollouts, l,
        checkpoints, judge, advantages, sft, train);
  }

  public ArborConfig withAdvantages(AdvantageSettings a) {
    return new ArborConfig(warehouse, dataDir, spark, ingest, setup, policy, synthesis, repl, sandbox, rlm, rollouts, learner,
        checkpoints, judge, a, sft, train);
  }

  public ArborConfig withTrain(TrainSettings t) {
    return new ArborConfig(warehouse, dataDir, spark, ingest, setup, policy, synthesis, repl, sandbox, rlm, rollouts, learner,
        checkpoints, judge, advantages, sft, t);
  }

  public ArborConfig withSetup(SetupSettings s) {
    return new ArborConfig(warehouse, dataDir, spark, ingest, s, policy, synthesis, repl, sandbox, rlm, rollouts, learner,
        checkpoints, judge, advantages, sft, train);
  }

  public ArborConfig withSft(SftSettings s) {
    return new ArborConfig(warehouse, dataDir, spark, ingest, setup, policy, synthesis, repl, sandbox, rlm, rollouts, learner,
        checkpoints, judge, advantages, s, train);
  }
}
