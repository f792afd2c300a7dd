package arbor.jobs.train;

import static org.apache.spark.sql.functions.col;

import ai.djl.Device;
import arbor.pipelines.checkpoints.CheckpointStore;
import arbor.conf.ArborConfig;
import arbor.pipelines.eval.Evaluate;
import arbor.jobs.cli.Args;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import arbor.pipelines.learner.Learner;
import arbor.policy.checkpoint.AdamWStates;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.checkpoint.OptimizerState;
import arbor.policy.holder.DeltaCheckpointSource;
import arbor.policy.holder.PolicyVersions;
import arbor.policy.holder.RemoteModelFolder;
import arbor.policy.holder.RunCheckpoints;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.PolicyModel;
import arbor.policy.model.Qwen3Model;
import arbor.synthesis.Queries;
import arbor.pipelines.training.TrainingStep;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import java.io.IOException;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * {@code arbor train --run ID [--resume]}: the training loop, {@code train.steps} numbered,
 * timed steps of rollouts (executors) -> judge -> advantages -> learner (driver) -> checkpoint
 * -> metrics, every result in the warehouse. Step {@code s} rolls out policy version {@code s}
 * (checkpoint step {@code s}) and writes version {@code s + 1}. The run's step-0 checkpoint is
 * its initial weights: {@code sft}'s if it wrote one, else {@code policy.djl.model_dir}, saved
 * there first, so executors load every version from the warehouse and never from a path of the
 * driver.
 */
public final class TrainJob implements Job {

  @Override
  public String summary() {
    return "train a policy: rollouts -> judge -> advantages -> learner -> checkpoint, per step";
  }

  @Override
  public String usage() {
    return """
        options:
          --run ID     the training run (its rows and checkpoints in the warehouse are keyed by it)
          --resume     continue the run from its latest complete checkpoint, optimizer state
                       included, up to train.steps; without it, a run with checkpoints beyond
                       step 0 is refused

        configuration: train.steps, train.queries_per_step, train.eval_every, rollouts.*,
        learner.*, policy.djl.model_dir (the initial weights when the run has no step-0
        checkpoint; sft writes one). Example:
          bin/arbor train --run r1 --set train.steps=3 --set train.queries_per_step=8
        """;
  }

  @Override
  public int run(JobContext context) throws Exception {
    Args args = Args.parse("train", context.args(), Set.of("resume"), Set.of("run"));
    if (!args.positionals().isEmpty()) throw new UsageError("train: unexpected argument(s) " + args.positionals());
    String runId = args.value("run").orElseThrow(() -> new UsageError("train: --run ID is required"));
    if (runId.isBlank() || runId.equals(PolicyVersions.BASE)) {
      throw new UsageError("train: --run must name a run, and '" + PolicyVersions.BASE + "' is reserved for the base model");
    }
    ArborConfig config = context.config();
    long steps = config.train().steps();
    var warehouse = context.warehouse();
    CheckpointStore store = new CheckpointStore(context.spark(), warehouse, config.checkpoints());
    Optional<Long> latest = store.latest(runId);
    boolean resume = args.flag("resume");
    if (!resume && latest.isPresent() && latest.get() > 0) {
      throw new UsageError("train: run '" + runId + "' already has checkpoints up to step " + latest.get()
          + "; use --resume to continue it, or another --run id");
    }
    if (resume && latest.isEmpty()) {
      throw new UsageError("train --resume: run '" + runId + "' has no complete checkpoint in " + store.tablePath()
          + "; start it without --resume");
    }
    if (store.steps(runId, arbor.policy.checkpoint.TableVersion.LATEST).stream().noneMatch(s -> s == 0)) {
      saveInitial(store, config, runId, context);
    }
    long next = resume ? latest.get() : 0;
    context.out().printf("train: run %s, steps %d..%d of %d, %d queries x %d samples per step, policy v%d from %s%n",
        runId, next + 1, steps, steps, config.train().queriesPerStep(), config.rollouts().samples(), next, store.tablePath());
    if (next >= steps) {
      context.out().printf("train: run %s already has %d steps (train.steps = %d): nothing to do%n", runId, next, steps);
      return 0;
    }

    Checkpoint start = store.load(runId, next);
    try (PolicyModel policy = DeltaCheckpointSource.toPolicy(start, Device.cpu());
        Learner learner = Learner.withReference(policy.model(), reference(store, config, runId), config.learner(),
            config.policy().djl().sampling().temperature())) {
      if (next > 0) {
        // Step 0's optimizer state (sft's, if any) is not this run's: the RL optimizer starts fresh.
        learner.optimizer().importState(AdamWStates.fromOptimizerState(start.optimizer()));
      }
      TrainingStep step = new TrainingStep(config, warehouse, store, new RunCheckpoints(store.source()), learner, policy,
          runId, context.apiKeys(), context.out()::println);
      if (next == 0) evaluationHook(context, runId, 0);
      for (long s = next; s < steps; s++) {
        TrainingStep.Report report = step.run(s);
        context.out().println(TrainingStep.line(report, steps));
        long version = s + 1;
        if (config.train().evalEvery() > 0 && version % config.train().evalEvery() == 0) {
          evaluationHook(context, runId, version);
        }
      }
    }
    context.out().printf("train: run %s done; its latest checkpoint is step %d%n", runId, store.latest(runId).orElse(-1L));
    return 0;
  }

  /**
   * Evaluation on the validation split: before the first step (version 0) and after every
   * {@code train.eval_every} steps, with the policy version just written; rows go to the
   * {@code eval} table under the run and the version's step.
   */
  void evaluationHook(JobContext context, String runId, long policyVersion) {
    ArborConfig config = context.config();
    if (config.train().evalEvery() <= 0) return;
    Warehouse warehouse = context.warehouse();
    // Evaluation is on by default; a warehouse built without a validation split still trains.
    if (Queries.active(warehouse.read(Table.QUERIES)).where(col(Queries.SPLIT).equalTo("validation")).isEmpty()) {
      context.out().printf("train: no active validation query in %s: policy v%d not evaluated"
          + " (train.eval_every = %d; synthesis.splits.validation makes the split)%n",
          warehouse.path(Table.QUERIES), policyVersion, config.train().evalEvery());
      return;
    }
    long t0 = System.nanoTime();
    CheckpointStore store = new CheckpointStore(context.spark(), warehouse, config.checkpoints());
    Evaluate.Written written = new Evaluate(config,
        new RunCheckpoints(store.source()), context.apiKeys(), context.out()::println)
        .evaluate(warehouse, runId, policyVersion, policyVersion, "validation");
    context.out().printf(Locale.ROOT, "train: evaluated policy v%d of run %s on the validation split"
        + " (%d trees, %.1f s; rollouts under run %s)%n", policyVersion, runId, written.trees(),
        (System.nanoTime() - t0) / 1e9, written.evalRunId());
  }

  /** A fresh run without an sft checkpoint: the configured model folder becomes its step 0. */
  private static void saveInitial(CheckpointStore store, ArborConfig config, String runId, JobContext context)
      throws IOException {
    String dir = config.policy().djl().modelDir();
    if (dir == null || dir.isBlank()) {
      throw new UsageError("train: run '" + runId + "' has no step-0 checkpoint (sft writes one) and"
          + " policy.djl.model_dir is not set; set it to a Hugging Face folder, or run sft first");
    }
    try (PolicyModel initial = HfModelFolder.load(RemoteModelFolder.local(dir, config.policy().djl().cache()), Device.cpu())) {
      store.save(runId, 0, initial, OptimizerState.NONE, new byte[0], java.util.Map.of());
    }
    context.out().printf("train: run %s starts from %s (saved as its step-0 checkpoint)%n", runId, dir);
  }

  /** The frozen reference: the run's initial weights (step 0), or none when the KL term is off. */
  private static Qwen3Model reference(CheckpointStore store, ArborConfig config, String runId) throws IOException {
    if (config.learner().betaKl() <= 0) return null;
    PolicyModel ref = DeltaCheckpointSource.toPolicy(store.load(runId, 0), Device.cpu());
    ref.tokenizer().close();
    return ref.model();
  }
}
