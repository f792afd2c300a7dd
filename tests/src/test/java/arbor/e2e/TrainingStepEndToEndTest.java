package arbor.e2e;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.ArborConfig;
import arbor.jobs.conf.ConfigLoader;
import arbor.judge.JudgeSpec;
import arbor.pipelines.advantages.Advantages;
import arbor.pipelines.judge.Judge;
import arbor.pipelines.judge.References;
import arbor.pipelines.metrics.StepMetrics;
import arbor.pipelines.rollouts.Rollouts;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.rlm.policy.endpoint.LoopbackApi;
import arbor.rlm.runtime.SharedRuntimes;
import arbor.tables.Cols;
import arbor.tables.Metric;
import arbor.tables.Reward;
import arbor.tables.RolloutNode;
import arbor.tables.RolloutTurn;
import arbor.tables.Samples;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * One training step's data path on local Spark and real Delta: rollouts (real sandboxes, the
 * scripted expert or the tiny djl model) -> the embedded judge -> advantages -> samples and
 * metrics; a rerun of the step leaves the same rows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TrainingStepEndToEndTest {
  private Path root;
  private SparkSession spark;
  private Dataset<Row> queries;
  private Dataset<Row> groups;
  private Dataset<Row> papers;

  @BeforeAll
  void tables() throws Exception {
    spark = TestEnv.spark();
    root = TestEnv.WORK.resolve("training-step-e2e");
    arbor.jobs.cli.FileTrees.delete(root);
    TinyCorpus corpus = TinyCorpus.of(spark);
    papers = corpus.papers();
    groups = corpus.groups();
    queries = corpus.queries();
  }

  @AfterAll
  void close() {
    SharedRuntimes.closeAll();
  }

  static ArborConfig config(String warehouse, String... settings) {
    List<String> all = new ArrayList<>(List.of("warehouse=" + warehouse,
        "rlm.prompt_dir=" + TestEnv.REPO.resolve("conf/prompts"), "rollouts.trees_per_task=4",
        "sandbox.workers=1", "sandbox.worker_heap_mb=768", "sandbox.jvm_options=[\"-XX:TieredStopAtLevel=1\"]"));
    all.addAll(List.of(settings));
    return ConfigLoader.load(List.of(), all);
  }

  /** What one step wrote. */
  record Step(List<Row> nodes, List<Row> turns, List<Row> rewards, List<Row> samples, Map<String, Double> metrics) {}

  Step step(ArborConfig config, String runId) {
    Rollouts rollouts = new Rollouts(config);
    rollouts.write(new Warehouse(spark, config.warehouse()), rollouts.tasks(queries, groups, papers, Rollouts.Step.of(runId, 0, 0)));
    return judgeAndWeigh(config, runId);
  }

  /** The judge, advantages and metrics stages over the step's rollout tables as written. */
  Step judgeAndWeigh(ArborConfig config, String runId) {
    Warehouse w = new Warehouse(spark, config.warehouse());
    Dataset<Row> nodes = stepRows(w, Table.ROLLOUT_NODES, runId).cache();
    Dataset<Row> turns = stepRows(w, Table.ROLLOUT_TURNS, runId);
    Dataset<Row> references = References.of(queries, groups, papers).cache();
    w.replaceStep(Table.REWARDS, runId, 0, new Judge(JudgeSpec.resolve(config.judge(), Map.of())).transform(nodes, references));
    Dataset<Row> rewards = stepRows(w, Table.REWARDS, runId).cache();
    Advantages advantages = new Advantages(config.advantages(), config.rlm().maxDepth());
    w.replaceStep(Table.SAMPLES, runId, 0, advantages.samples(nodes, turns, rewards));
    w.replaceStep(Table.METRICS, runId, 0, StepMetrics.of(nodes, rewards, references, advantages.rootAdvantages(nodes, rewards)));
    Map<String, Double> metrics = new HashMap<>();
    for (Row m : stepRows(w, Table.METRICS, runId).collectAsList()) metrics.put(m.getAs(Metric.NAME), m.getAs(Metric.VALUE));
    return new Step(sorted(nodes.collectAsList()), sorted(turns.collectAsList()), sorted(rewards.collectAsList()),
        sorted(stepRows(w, Table.SAMPLES, runId).collectAsList()), metrics);
  }

  static Dataset<Row> stepRows(Warehouse w, Table t, String runId) {
    return w.read(t).where(col(Cols.RUN_ID).equalTo(runId).and(col(Cols.STEP).equalTo(0)));
  }

  /** A step's rows of a rollout table without the columns that time it. */
  List<Row> untimed(ArborConfig config, Table t, String runId) {
    return sorted(stepRows(new Warehouse(spark, config.warehouse()), t, runId)
        .drop(RolloutNode.LATENCY_MS, RolloutTurn.GEN_MS, RolloutTurn.EXEC_MS).collectAsList());
  }

  static List<Row> sorted(List<Row> rows) {
    List<Row> out = new ArrayList<>(rows);
    out.sort(Comparator.comparing(Row::toString));
    return out;
  }

  /** The scripted expert's step: 2 queries x 4 samples, in-process sandboxes (the judge tests' trees). */
  ArborConfig scriptedConfig(String... more) {
    List<String> settings = new ArrayList<>(List.of("rollouts.policy=scripted", "rollouts.sandbox=in_process", "rollouts.samples=4"));
    settings.addAll(List.of(more));
    return config(root.resolve("scripted").toString(), settings.toArray(new String[0]));
  }

  static void checkRewards(Step s) {
    List<Row> roots = s.nodes().stream().filter(n -> n.getAs(RolloutNode.PARENT_ID) == null).toList();
    assertEquals(roots.size(), s.rewards().size(), "one reward per root, none per child");
    for (Row r : s.rewards()) {
      assertEquals(Reward.OK, r.getAs(Reward.STATUS), String.valueOf(r));
      double reward = r.getAs(Reward.REWARD);
      assertTrue(reward >= 0 && reward <= 1, "reward " + reward);
      assertEquals("embedded", r.getAs(Reward.JUDGE));
    }
    assertEquals((double) roots.size(), s.metrics().get("judge.roots"));
  }

  @Test
  void theScriptedExpertsStepIsJudgedAndARerunLeavesTheSameRows() {
    ArborConfig config = scriptedConfig();
    Step first = step(config, "run-s");
    assertTrue(first.nodes().stream().anyMatch(n -> n.<Integer>getAs(RolloutNode.DEPTH) == 1), "the expert delegated");
    checkRewards(first);
    assertTrue(first.rewards().stream().anyMatch(r -> r.<Double>getAs(Reward.REWARD) > 0), "the expert found some evidence");
    // The expert has no token ids: no training samples, and the metrics still cover the step.
    assertEquals(0, first.samples().size());
    assertTrue(first.metrics().containsKey("rollouts.child_paper_f1"), first.metrics().keySet().toString());
    List<Row> firstNodes = untimed(config, Table.ROLLOUT_NODES, "run-s");
    List<Row> firstTurns = untimed(config, Table.ROLLOUT_TURNS, "run-s");
    Step again = step(config, "run-s");
    assertEquals(first.rewards(), again.rewards());
    // The same trees, cell for cell; only the clocks differ.
    assertEquals(firstNodes, untimed(config, Table.ROLLOUT_NODES, "run-s"));
    assertEquals(firstTurns, untimed(config, Table.ROLLOUT_TURNS, "run-s"));
  }

  @Test
  void theTinyDjlStepGivesOneAlignedSamplePerTurnAndARerunLeavesTheSameRows() throws Exception {
    Path model = root.resolve("tiny-model");
    TinyCorpus.student(model);
    String wh = root.resolve("djl").toString();
    ArborConfig config = config(wh, "rollouts.policy=djl", "rollouts.sandbox=in_process", "policy.djl.model_dir=" + model,
        "policy.djl.sampling.max_new_tokens=12", "rlm.max_turns=2", "rollouts.samples=2", "rlm.prompts=reduced");
    Step first = step(config, "run-d");
    checkRewards(first);
    // Every root is scored, every turn has token ids: one sample per turn.
    assertEquals(first.turns().size(), first.samples().size());
    Map<String, Row> nodes = new HashMap<>();
    for (Row n : first.nodes()) nodes.put(n.getAs(Cols.NODE_ID), n);
    for (Row s : first.samples()) {
      Row node = nodes.get(s.<String>getAs(Cols.NODE_ID));
      assertEquals(node.<String>getAs(Cols.ROOT_ID), s.getAs(Cols.ROOT_ID));
      assertEquals(s.getList(s.fieldIndex(Cols.RESPONSE_IDS)).size(), s.getList(s.fieldIndex(Cols.LOGPROBS)).size());
      assertEquals(node.<Long>getAs(RolloutNode.GEN_TOKENS), s.<Long>getAs(Samples.NODE_GEN_TOKENS));
    }
    // A rerun of the whole step, rollouts included, leaves the same rows bit for bit: the seeds
    // depend on the tree and turn alone, and the engine's numerics not on which other sequences
    // shared a batch (docs/rollouts.md, "What a rerun reproduces").
    List<Row> firstTurns = untimed(config, Table.ROLLOUT_TURNS, "run-d");
    List<Row> firstNodes = untimed(config, Table.ROLLOUT_NODES, "run-d");
    Step again = step(config, "run-d");
    assertEquals(firstTurns, untimed(config, Table.ROLLOUT_TURNS, "run-d"));
    assertEquals(firstNodes, untimed(config, Table.ROLLOUT_NODES, "run-d"));
    assertEquals(first.samples(), again.samples());
    assertEquals(first.rewards(), again.rewards());
  }

  @Test
  void aJudgeEndpointThatErrorsTimesOutOrAnswersGarbageNeverFailsTheStepAndItsRowsSaySo() throws Exception {
    // Each distinct judge request (one root's case; a retry repeats it) gets one behaviour, in
    // turn: a score, HTTP 500, no reply within the timeout, or text that is not JSON.
    Map<String, Integer> behaviourOf = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.concurrent.atomic.AtomicReference<LoopbackApi> api = new java.util.concurrent.atomic.AtomicReference<>();
    String scored = "{\"precision\": 6, \"recall\": 10, \"reasoning\": \"all of it, some padding\"}";
    try (LoopbackApi judge = new LoopbackApi("/v1/chat/completions", attempt -> {
      String user = api.get().requests.get(attempt).body().path("messages").get(1).path("content").asText();
      int behaviour;
      synchronized (behaviourOf) {
        behaviour = behaviourOf.computeIfAbsent(user, u -> behaviourOf.size() % 4);
      }
      return switch (behaviour) {
        case 0 -> LoopbackApi.Reply.chat(scored);
        case 1 -> new LoopbackApi.Reply(500, Map.of(), "{\"error\": {\"message\": \"judge down\", \"type\": \"server_error\"}}", 0);
        case 2 -> new LoopbackApi.Reply(200, Map.of(), LoopbackApi.chatCompletion(scored), 6000);
        default -> LoopbackApi.Reply.chat("PRECISION: high. RECALL: low.");
      };
    })) {
      api.set(judge);
      ArborConfig config = scriptedConfig("judge.kind=rubric", "judge.rubric.base_url=" + judge.root() + "/v1", "judge.rubric.api_key_env=\"\"",
          "judge.rubric.timeout_seconds=2", "judge.rubric.attempts=2", "judge.rubric.backoff_millis=20");
      // The scripted step's trees (rolled out here unless the other test did), judged anew.
      Warehouse w = new Warehouse(spark, config.warehouse());
      if (!w.exists(Table.ROLLOUT_NODES) || stepRows(w, Table.ROLLOUT_NODES, "run-s").isEmpty()) {
        Rollouts rollouts = new Rollouts(config);
        rollouts.write(w, rollouts.tasks(queries, groups, papers, Rollouts.Step.of("run-s", 0, 0)));
      }
      Step s = judgeAndWeigh(config, "run-s");

      assertEquals(8, s.rewards().size(), "one row per root, the failed ones included");
      Map<String, Integer> outcomes = new HashMap<>();
      for (Row r : s.rewards()) {
        String status = r.getAs(Reward.STATUS);
        if (status.equals(Reward.OK)) {
          assertEquals(0.8, r.<Double>getAs(Reward.REWARD), 1e-12, "(6 + 10) / 20");
          assertEquals("rubric", r.getAs(Reward.JUDGE));
          outcomes.merge("scored", 1, Integer::sum);
          continue;
        }
        assertEquals(Reward.JUDGE_ERROR, status, String.valueOf(r));
        assertTrue(r.isNullAt(r.fieldIndex(Reward.REWARD)), "a judge failure is not a zero reward");
        String error = r.getAs(Reward.ERROR);
        String what = List.of("request failed", "timeout: no reply within 2.0 s", "invalid reply: not JSON").stream()
            .filter(m -> error.contains("after 2 attempt(s): " + m)).findFirst().orElseThrow(() -> new AssertionError(error));
        outcomes.merge(what, 1, Integer::sum);
        // The span metrics need no judge.
        assertFalse(r.isNullAt(r.fieldIndex(Reward.SPAN_F1)), String.valueOf(r));
      }
      assertEquals(Math.min(4, behaviourOf.size()), outcomes.size(), "every behaviour was met: " + outcomes);
      int failed = 8 - outcomes.getOrDefault("scored", 0);
      assertEquals((double) failed, s.metrics().get("judge.errors"));
      // The failed roots are left out of their groups and give no advantage.
      assertEquals((double) failed, s.metrics().get("advantages.left_out_roots"));
    }
  }
}
