package arbor.jobs.sft;

import static org.apache.spark.sql.functions.col;

import ai.djl.Device;
import arbor.conf.ApiKeys;
import arbor.conf.ArborConfig;
import arbor.conf.PolicyKind;
import arbor.conf.RolloutSettings;
import arbor.conf.SftSettings;
import arbor.jobs.cli.Args;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import arbor.judge.JudgeSpec;
import arbor.pipelines.checkpoints.CheckpointStore;
import arbor.pipelines.judge.Judge;
import arbor.pipelines.judge.References;
import arbor.pipelines.rollouts.Rollouts;
import arbor.pipelines.sft.TeacherKey;
import arbor.pipelines.sft.TeacherRuns;
import arbor.pipelines.sft.TeacherTraces;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.policy.checkpoint.OptimizerState;
import arbor.policy.files.ChatMessage;
import arbor.policy.holder.RemoteModelFolder;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.PolicyModel;
import arbor.policy.train.AdamW;
import arbor.policy.train.ResponseSample;
import arbor.policy.train.SftUpdate;
import arbor.policy.train.TeacherTurns;
import arbor.progress.Progress;
import arbor.progress.Tally;
import arbor.synthesis.Queries;
import arbor.tables.Cols;
import arbor.tables.Metric;
import arbor.tables.RolloutTurn;
import arbor.tables.TeacherRun;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * {@code arbor sft --run RUN [--teacher scripted|openai|anthropic]}: cold-start SFT. The teacher
 * runs the active {@code sft} split in the training harness (run id {@code RUN-sft-teacher},
 * step 0), its roots are judged, the clean trees are kept ({@link TeacherTraces}), every kept
 * turn (children's too) is rendered in the student's chat format and learned by cross-entropy
 * ({@link SftUpdate}); the student's weights become the run's step-0 checkpoint. Traces are made
 * once: a later sft whose data and teacher give the same {@link TeacherKey} reuses the trees and
 * rewards of the run that made them ({@link TeacherRuns}) unless {@code --fresh-teacher}.
 */
public final class SftJob implements Job {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public String summary() {
    return "cold-start SFT on a teacher's clean traces: the run's step-0 checkpoint";
  }

  @Override
  public String usage() {
    return """
        usage: arbor sft --run RUN [--teacher scripted|openai|anthropic] [--fresh-teacher]
          --run            the training run whose step-0 checkpoint this writes
          --teacher        who writes the traces (default scripted: the expert, no network);
                           the student is policy.djl.model_dir, settings under sft.*
          --fresh-teacher  run the teacher even when the warehouse holds its traces for the
                           same sft data and teacher settings (table teacher_runs)""";
  }

  @Override
  public int run(JobContext context) throws Exception {
    Args args = Args.parse("sft", context.args(), Set.of("fresh-teacher"), Set.of("run", "teacher"));
    String run = args.value("run").orElseThrow(() -> new UsageError("sft: give the run: --run RUN"));
    PolicyKind teacher = teacher(args.value("teacher").orElse("scripted"));
    ArborConfig base = context.config();
    SftSettings sft = base.sft();
    RolloutSettings r = base.rollouts();
    ArborConfig config = base.withRollouts(new RolloutSettings(teacher, sft.samples(), r.treesPerTask(),
        r.maxInfraFailureFraction(), r.sandbox()));
    if (base.policy().djl().modelDir() == null || base.policy().djl().modelDir().isBlank()) {
      throw new UsageError("sft: the student is policy.djl.model_dir, which is not set");
    }
    Warehouse w = context.warehouse();
    Dataset<Row> queries = Queries.active(w.read(Table.QUERIES)).where(col(Queries.SPLIT).equalTo("sft")).cache();
    long n = queries.count();
    if (n == 0) {
      throw new IllegalArgumentException("sft: no active query in split 'sft' of " + w.path(Table.QUERIES)
          + "; run synthesize (synthesis.splits.sft > 0)");
    }
    Dataset<Row> groups = w.read(Table.PAPER_GROUPS);
    Dataset<Row> papers = w.read(Table.PAPERS);
    var out = context.out();
    ApiKeys keys = context.apiKeys();
    TeacherKey key = TeacherKey.of(config, teacher, queries, groups, papers);
    TeacherRuns made = new TeacherRuns(context.spark(), w);
    Optional<TeacherRun> earlier = args.flag("fresh-teacher") ? Optional.empty() : made.find(key.hash());
    String teacherRun = earlier.map(TeacherRun::teacherRun).orElse(run + "-sft-teacher");
    if (earlier.isPresent()) {
      out.printf(Locale.ROOT, "sft: reusing the %d teacher trees of run %s, made %s for the same sft data and teacher"
          + " (key %s); --fresh-teacher runs the teacher again%n", earlier.get().trees(), teacherRun,
          earlier.get().at(), key.hash().substring(0, 12));
    } else {
      out.printf(Locale.ROOT, "sft: teacher %s on %d sft queries x %d samples (run %s)%n", teacher.key(), n,
          sft.samples(), teacherRun);
      made.forget(teacherRun);
      Rollouts rollouts = new Rollouts(config).withKeys(keys).withProgress("sft teacher rollouts", out::println);
      long trees = rollouts.write(w, rollouts.tasks(queries, groups, papers, Rollouts.Step.of(teacherRun, 0, 0))).trees();
      w.replaceStep(Table.REWARDS, teacherRun, 0, new Judge(JudgeSpec.resolve(config.judge(), keys.byVariable()))
          .transform(stepRows(w, Table.ROLLOUT_NODES, teacherRun), References.of(queries, groups, papers)));
      made.record(new TeacherRun(key.hash(), teacherRun, key.dataset(), key.settings(), trees,
          new Timestamp(System.currentTimeMillis())));
    }
    Dataset<Row> nodes = stepRows(w, Table.ROLLOUT_NODES, teacherRun).cache();
    Dataset<Row> turns = stepRows(w, Table.ROLLOUT_TURNS, teacherRun);
    Dataset<Row> rewards = stepRows(w, Table.REWARDS, teacherRun);
    TeacherTraces traces = new TeacherTraces();
    Dataset<Row> verdicts = traces.verdicts(nodes, turns, rewards).cache();
    Map<String, Long> dropped = new LinkedHashMap<>();
    long kept = 0;
    for (Row v : verdicts.groupBy(TeacherTraces.REASON).count().collectAsList()) {
      if (v.isNullAt(0)) kept = v.getLong(1);
      else dropped.put(v.getString(0), v.getLong(1));
    }
    long droppedTotal = dropped.values().stream().mapToLong(Long::longValue).sum();
    out.printf(Locale.ROOT, "sft: kept %d of %d teacher trees%n", kept, kept + droppedTotal);
    dropped.forEach((reason, count) -> out.printf(Locale.ROOT, "sft:   dropped %d: %s%n", count, reason));
    if (kept == 0) {
      throw new IllegalStateException("sft: the teacher kept no tree, nothing to learn; see the reasons above"
          + " (rollout rows under run " + teacherRun + ")");
    }

    Map<String, Double> metrics = new LinkedHashMap<>();
    metrics.put("sft.trees_kept", (double) kept);
    metrics.put("sft.trees_dropped", (double) droppedTotal);
    try (PolicyModel student = HfModelFolder.load(RemoteModelFolder.local(base.policy().djl().modelDir(), base.policy().djl().cache()), Device.cpu())) {
      TeacherTurns render = new TeacherTurns(student);
      int cap = base.policy().djl().sampling().maxNewTokens();
      List<ResponseSample> samples = new ArrayList<>();
      List<ResponseSample> heldOut = new ArrayList<>();
      long tooLong = 0;
      long overCap = 0;
      int longestResponse = 0;
      Iterator<Row> it = traces.keptTurns(verdicts, nodes, turns)
          .select(Cols.QUERY_ID, RolloutTurn.MESSAGES, RolloutTurn.RESPONSE_TEXT).toLocalIterator();
      while (it.hasNext()) {
        Row t = it.next();
        ResponseSample s = render.render(messages(t.getString(1)), t.getString(2));
        longestResponse = Math.max(longestResponse, s.responseIds().length);
        if (s.length() > sft.maxSampleTokens()) tooLong++;
        else if (s.responseIds().length > cap) overCap++;
        else if (heldOut(t.getString(0), sft)) heldOut.add(s);
        else samples.add(s);
      }
      metrics.put("sft.turns", (double) samples.size());
      metrics.put("sft.turns_held_out", (double) heldOut.size());
      metrics.put("sft.turns_too_long", (double) tooLong);
      metrics.put("sft.turns_over_cap", (double) overCap);
      out.printf(Locale.ROOT, "sft: %d kept turns rendered in the student's chat format (%d more held out); %d left out"
          + " as longer than sft.max_sample_tokens = %d%n", samples.size(), heldOut.size(), tooLong, sft.maxSampleTokens());
      if (overCap > 0) {
        out.printf(Locale.ROOT, "sft: warning: %d kept turns answer in more tokens (up to %d) than the student may"
            + " generate (policy.djl.sampling.max_new_tokens = %d); left out, as the student could never emit"
            + " them: raise the cap or shorten the teacher's turns%n", overCap, longestResponse, cap);
      }
      if (samples.isEmpty()) {
        throw new IllegalStateException("sft: no kept turn fits both sft.max_sample_tokens = " + sft.maxSampleTokens()
            + " and the generation cap " + cap + " (student tokens); see the counts above");
      }
      student.model().setTrainable(true);
      try (SftUpdate update = new SftUpdate(student.model(), AdamW.Hyper.sft(sft, base.learner()), sft.microBatchTokens(),
          base.learner().attentionChunk())) {
        long total = (long) sft.epochs() * update.stepsPerEpoch(samples);
        update.schedule(new SftUpdate.Schedule(sft.lr(), sft.warmupSteps(), total, sft.minLrFraction()));
        if (!heldOut.isEmpty()) {
          out.printf(Locale.ROOT, "sft: held-out loss before training %.4f%n", update.loss(heldOut));
        }
        for (int e = 1; e <= sft.epochs(); e++) {
          Tally tokens = new Tally();
          SftUpdate.Epoch epoch;
          try (var p = Progress.start("sft epoch " + e + "/" + sft.epochs(), "tokens", tokens::done, tokens::total,
              base.train().progressSeconds(), out::println)) {
            epoch = update.epoch(samples, sft.seed() * 1_000_003L + e, tokens);
          }
          metrics.put("sft.loss.epoch_" + e, epoch.loss());
          metrics.put("sft.loss", epoch.loss());
          metrics.put("sft.tokens", (double) epoch.tokens());
          metrics.put("sft.tokens_per_s", epoch.tokensPerSecond());
          String held = "";
          if (!heldOut.isEmpty()) {
            double h = update.loss(heldOut);
            metrics.put("sft.held_out_loss.epoch_" + e, h);
            metrics.put("sft.held_out_loss", h);
            held = String.format(Locale.ROOT, "  held-out %.4f", h);
          }
          out.printf(Locale.ROOT, "sft: epoch %d/%d  loss %.4f%s  %d tokens  %d steps  lr %.2e  %.1f s (%.0f response"
              + " tokens/s)%n", e, sft.epochs(), epoch.loss(), held, epoch.tokens(), epoch.steps(), epoch.lr(),
              epoch.seconds(), epoch.tokensPerSecond());
        }
      }
      // SFT's optimizer state is not carried into RL: the train job starts a fresh AdamW.
      CheckpointStore store = new CheckpointStore(context.spark(), w, base.checkpoints());
      long version = store.save(run, 0, student, OptimizerState.NONE, new byte[0], Map.of());
      out.printf(Locale.ROOT, "sft: wrote run %s step 0 to %s (Delta version %d)%n", run, store.tablePath(), version);
    }
    w.replaceWhere(Table.METRICS, Metric.sftRows(run),
        context.spark().createDataFrame(Metric.rows(run, 0L, metrics), Metric.SCHEMA));
    nodes.unpersist();
    verdicts.unpersist();
    return 0;
  }

  /** Whether a query's trees are held out of training: a fixed draw by query id and seed. */
  static boolean heldOut(String queryId, SftSettings sft) {
    if (sft.heldOutFraction() <= 0) return false;
    long h = (queryId + "#" + sft.seed()).hashCode();
    return Math.floorMod(h * 0x9E3779B97F4A7C15L, 1_000_000L) < sft.heldOutFraction() * 1_000_000;
  }

  private static PolicyKind teacher(String name) {
    PolicyKind k;
    try {
      k = PolicyKind.parse(name);
    } catch (IllegalArgumentException e) {
      k = null;
    }
    if (k != PolicyKind.SCRIPTED && k != PolicyKind.OPENAI && k != PolicyKind.ANTHROPIC) {
      throw new UsageError("sft: --teacher must be scripted, openai or anthropic, got '" + name + "'");
    }
    return k;
  }

  static List<ChatMessage> messages(String json) {
    List<ChatMessage> out = new ArrayList<>();
    try {
      for (JsonNode m : JSON.readTree(json)) {
        out.add(new ChatMessage(ChatMessage.Role.valueOf(m.get("role").asText().toUpperCase(Locale.ROOT)),
            m.get("content").asText()));
      }
    } catch (Exception e) {
      throw new IllegalArgumentException("sft: a rollout_turns row's messages are not a JSON list of"
          + " {role, content}: " + e.getMessage(), e);
    }
    return out;
  }

  private static Dataset<Row> stepRows(Warehouse w, Table t, String runId) {
    return w.read(t).where(col(Cols.RUN_ID).equalTo(runId).and(col(Cols.STEP).equalTo(0)));
  }
}
