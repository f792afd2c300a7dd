package arbor.e2e;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.jobs.conf.ConfigLoader;
import arbor.pipelines.checkpoints.CheckpointStore;
import arbor.pipelines.sft.TeacherTraces;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.model.HfModelFolder;
import arbor.rlm.policy.endpoint.LoopbackApi;
import arbor.rlm.runtime.SharedRuntimes;
import arbor.tables.Cols;
import arbor.tables.Eval;
import arbor.tables.Metric;
import arbor.tables.TeacherRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * The sft and eval jobs on a warehouse of two papers' groups: the scripted teacher's traces
 * teach a tiny byte-level student whose weights become step 0; the scripted policy is evaluated
 * on the validation split twice and leaves one copy of its rows, with a report folder. An
 * OpenAI-compatible server on the loopback interface is the endpoint teacher of sft and the
 * endpoint policy of eval.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SftEvalEndToEndTest {
  static final StructType QUERIES = TinyCorpus.QUERIES
      .add("tier", DataTypes.StringType).add("split", DataTypes.StringType);

  private Path root;
  private String warehouse;
  private Path model;

  @BeforeAll
  void tables() throws Exception {
    SparkSession spark = TestEnv.spark();
    root = TestEnv.WORK.resolve("sft-eval-e2e");
    arbor.jobs.cli.FileTrees.delete(root);
    warehouse = root.resolve("warehouse").toString();
    Warehouse w = new Warehouse(spark, warehouse);
    spark.createDataFrame(List.of(RowFactory.create("mt", RolloutsEndToEndTest.MT),
        RowFactory.create("parser", RolloutsEndToEndTest.PARSER), RowFactory.create("fold", RolloutsEndToEndTest.FOLDING)),
        RolloutsEndToEndTest.PAPERS).write().format("delta").save(w.path(Table.PAPERS));
    spark.createDataFrame(List.of(RowFactory.create("g1", List.of("mt", "parser", "fold")),
        RowFactory.create("g2", List.of("parser"))), RolloutsEndToEndTest.GROUPS)
        .write().format("delta").save(w.path(Table.PAPER_GROUPS));
    List<Row> queries = new ArrayList<>();
    for (String split : List.of("sft", "validation")) {
      queries.add(RowFactory.create(split + "-q1", "g1", "Which training corpus do the systems train on?",
          List.of(RowFactory.create("mt", TinyCorpus.MT_DATA)), "mid-range", split));
      queries.add(RowFactory.create(split + "-q3", "g2", "Which treebank is the parser trained on?",
          List.of(RowFactory.create("parser", TinyCorpus.PARSER_DATA)), "singleton", split));
    }
    spark.createDataFrame(queries, QUERIES).write().format("delta").save(w.path(Table.QUERIES));
    model = root.resolve("tiny-model");
    TinyCorpus.student(model);
  }

  @AfterAll
  void close() {
    SharedRuntimes.closeAll();
  }

  private String[] args(String job, String... rest) {
    List<String> all = new ArrayList<>(List.of(job));
    for (String s : List.of("warehouse=" + warehouse, "rlm.prompt_dir=" + TestEnv.REPO.resolve("conf/prompts"),
        "rollouts.sandbox=in_process", "rollouts.trees_per_task=4", "rollouts.samples=1", "sft.samples=1",
        "sft.epochs=1", "sft.lr=1e-3", "rlm.prompts=reduced", "sft.max_sample_tokens=2500", "policy.djl.model_dir=" + model)) {
      all.add("--set");
      all.add(s);
    }
    all.addAll(List.of(rest));
    return all.toArray(String[]::new);
  }

  @Test
  void sftWritesStepZeroAndCountsEveryTree() throws Exception {
    TestEnv.Run run = TestEnv.run(args("sft", "--run", "r1"));
    assertEquals(0, run.code(), run.out() + run.err());
    Matcher kept = Pattern.compile("kept (\\d+) of (\\d+) teacher trees").matcher(run.out());
    assertTrue(kept.find(), run.out());
    int total = Integer.parseInt(kept.group(2));
    assertEquals(2, total, "one tree per sft query");
    int dropped = 0;
    Matcher d = Pattern.compile("dropped (\\d+): ").matcher(run.out());
    while (d.find()) dropped += Integer.parseInt(d.group(1));
    assertEquals(total, Integer.parseInt(kept.group(1)) + dropped, run.out());

    SparkSession spark = TestEnv.spark();
    Warehouse w = new Warehouse(spark, warehouse);
    CheckpointStore store = new CheckpointStore(spark, w, ConfigLoader.load(List.of(), List.of()).checkpoints());
    assertEquals(0L, store.latest("r1").orElseThrow());
    Checkpoint c = store.load("r1", 0);
    assertTrue(c.files().containsKey(HfModelFolder.CONFIG) && c.files().containsKey(HfModelFolder.TOKENIZER),
        c.files().keySet().toString());
    // The weights moved from the student's folder: SFT took steps.
    try (var base = HfModelFolder.load(model, ai.djl.Device.cpu())) {
      float[] before = base.model().parameters().get(c.weights().getFirst().name()).toFloatArray();
      assertTrue(!java.util.Arrays.equals(before, c.weights().getFirst().values()), "SFT changed no weight");
    }
    Map<String, Double> metrics = new HashMap<>();
    for (Row m : w.read(Table.METRICS).where(col(Cols.RUN_ID).equalTo("r1")).collectAsList()) {
      metrics.put(m.getAs(Metric.NAME), m.getAs(Metric.VALUE));
    }
    assertEquals((double) total, metrics.get("sft.trees_kept") + metrics.get("sft.trees_dropped"));
    assertTrue(metrics.containsKey("sft.loss.epoch_1"), metrics.toString());

    // The student is evaluated from the run's checkpoint, though its trees are written under an
    // eval run id of their own.
    TestEnv.Run eval = TestEnv.run(args("eval", "--run", "r1", "--set", "rlm.max_turns=1",
        "--set", "policy.djl.sampling.max_new_tokens=8", "--report", root.resolve("report-r1").toString()));
    assertEquals(0, eval.code(), eval.out() + eval.err());
    List<Row> rows = w.read(Table.EVAL).where(col(Cols.RUN_ID).equalTo("r1")).collectAsList();
    assertEquals(2, rows.size(), "one row per validation tree: " + rows);
    for (Row r : rows) {
      assertEquals("djl", r.getAs(Eval.POLICY));
      assertEquals(0L, r.<Long>getAs(Cols.STEP));
    }
  }

  /**
   * Teacher traces are made once: a second sft with the same data and teacher reuses the first
   * one's trees; rewriting a teacher run for other settings forgets its old key, so the first
   * settings run the teacher again rather than learn from traces made for the second.
   */
  @Test
  void aSecondSftReusesTheTeachersTracesUntilTheyAreRewrittenForAnotherTeacher() throws Exception {
    Warehouse w = new Warehouse(TestEnv.spark(), warehouse);
    TestEnv.Run first = TestEnv.run(args("sft", "--run", "ra", "--fresh-teacher"));
    assertEquals(0, first.code(), first.out() + first.err());
    assertTrue(first.out().contains("teacher scripted on 2 sft queries x 1 samples (run ra-sft-teacher)"), first.out());

    TestEnv.Run second = TestEnv.run(args("sft", "--run", "rb"));
    assertEquals(0, second.code(), second.out() + second.err());
    assertTrue(second.out().contains("reusing the 2 teacher trees of run ra-sft-teacher"), second.out());
    assertEquals(0, w.read(Table.ROLLOUT_NODES).where(col(Cols.RUN_ID).equalTo("rb-sft-teacher")).count());
    assertEquals(kept(first.out()), kept(second.out()));
    CheckpointStore store = new CheckpointStore(TestEnv.spark(), w, ConfigLoader.load(List.of(), List.of()).checkpoints());
    assertEquals(0L, store.latest("rb").orElseThrow());

    // ra's teacher run again, for another REPL setting: its traces now belong to that key only.
    TestEnv.Run other = TestEnv.run(args("sft", "--run", "ra", "--set", "repl.max_output_chars=301"));
    assertEquals(0, other.code(), other.out() + other.err());
    assertTrue(other.out().contains("(run ra-sft-teacher)"), other.out());
    TestEnv.Run third = TestEnv.run(args("sft", "--run", "rc"));
    assertEquals(0, third.code(), third.out() + third.err());
    assertTrue(third.out().contains("teacher scripted on 2 sft queries x 1 samples (run rc-sft-teacher)"), third.out());
    Map<String, TeacherRun> entries = new HashMap<>();
    for (Row r : w.read(Table.TEACHER_RUNS).where(col(TeacherRun.TEACHER_RUN).isin("ra-sft-teacher", "rc-sft-teacher"))
        .collectAsList()) {
      entries.put(r.getAs(TeacherRun.TEACHER_RUN), TeacherRun.of(r));
    }
    assertEquals(java.util.Set.of("ra-sft-teacher", "rc-sft-teacher"), entries.keySet());
    assertTrue(entries.get("ra-sft-teacher").settings().contains("maxOutputChars=301"), entries.toString());
    assertEquals(2, entries.get("rc-sft-teacher").trees());
  }

  private static String kept(String out) {
    Matcher m = Pattern.compile("kept \\d+ of \\d+ teacher trees").matcher(out);
    assertTrue(m.find(), out);
    return m.group();
  }

  @Test
  void evalOfTheScriptedPolicyIsIdempotentAndWritesTheReport() throws Exception {
    Path report = root.resolve("report");
    for (int i = 0; i < 2; i++) {
      TestEnv.Run run = TestEnv.run(args("eval", "--run", "r2", "--policy", "scripted", "--report", report.toString()));
      assertEquals(0, run.code(), run.out() + run.err());
      assertTrue(run.out().contains("judge score"), run.out());
    }
    List<Row> rows = new Warehouse(TestEnv.spark(), warehouse).read(Table.EVAL)
        .where(col(Cols.RUN_ID).equalTo("r2")).collectAsList();
    assertEquals(2, rows.size(), "one row per tree after a rerun: " + rows);
    for (Row r : rows) {
      assertEquals("scripted", r.getAs(Eval.POLICY));
      assertEquals("validation", r.getAs(Eval.SPLIT));
      assertTrue(r.<Integer>getAs(Eval.NODES) >= 1);
    }
    for (String f : List.of("report.html", "reward.png", "training.png")) {
      assertTrue(Files.size(report.resolve(f)) > 0, f);
    }
    String page = Files.readString(report.resolve("report.html"));
    assertTrue(page.contains("<td>scripted</td><td>validation</td>"), page);
    assertTrue(page.contains("r2-eval-scripted-validation/view/step-0/"), page);
    // Eval wrote the eval run's viewer beside the report: the tree links open.
    Matcher link = Pattern.compile("href=\"([^\"#]*r2-eval-scripted-validation/view/[^\"#]*)#tree-").matcher(page);
    assertTrue(link.find(), page);
    assertTrue(Files.isRegularFile(report.resolve(link.group(1))), link.group(1));
    // `arbor report` regenerates the very report eval wrote, from the warehouse alone.
    Path again = root.resolve("report-again");
    TestEnv.Run rerun = TestEnv.run(args("report", "--run", "r2", "--out", again.toString()));
    assertEquals(0, rerun.code(), rerun.out() + rerun.err());
    assertEquals(page, Files.readString(again.resolve("report.html")));
    TestEnv.Run none = TestEnv.run(args("report", "--run", "no-such-run"));
    assertEquals(2, none.code(), none.out() + none.err());
  }

  /**
   * Common random numbers: two runs' evaluations on one split draw the same seed for each query,
   * sample, node and turn (before, a tree's seed came from its eval run id, so two runs, or two
   * policies, met different draws), and the passage teacher, whose choices are drawn from them,
   * writes the same code in both.
   */
  @Test
  void evaluationsOfTwoRunsDrawTheSameSeedsPerQueryAndSample() throws Exception {
    for (String run : List.of("crn-a", "crn-b")) {
      TestEnv.Run eval = TestEnv.run(args("eval", "--run", run, "--policy", "scripted", "--set",
          "policy.scripted.program=passages", "--set", "rollouts.samples=3", "--report", root.resolve(run).toString()));
      assertEquals(0, eval.code(), eval.out() + eval.err());
    }
    Warehouse w = new Warehouse(TestEnv.spark(), warehouse);
    Map<String, List<String>> byRun = new HashMap<>();
    for (String run : List.of("crn-a", "crn-b")) {
      List<String> turns = new ArrayList<>();
      for (Row t : w.read(Table.ROLLOUT_TURNS).where(col(Cols.RUN_ID).equalTo(run + "-eval-scripted-validation"))
          .orderBy(Cols.NODE_ID, Cols.TURN).select(Cols.NODE_ID, Cols.TURN, "seed", "code").collectAsList()) {
        turns.add(t.mkString(" | "));
      }
      byRun.put(run, turns);
    }
    assertTrue(byRun.get("crn-a").size() >= 6, "three trees of two turns at least: " + byRun.get("crn-a"));
    assertEquals(byRun.get("crn-a"), byRun.get("crn-b"));
  }

  static final String CORPUS_QUESTION = "Which training corpus do the systems train on?";
  static final String TREEBANK_QUESTION = "Which treebank is the parser trained on?";

  /**
   * A chat-completions server that answers like a competent RLM on the corpus question (search,
   * cut the sentence with extract_section, submit it a turn later with FINAL_VAR) and fails on the
   * treebank question: its first request there gets HTTP 500, every later one prose without code.
   */
  private static LoopbackApi rlmServer() throws java.io.IOException {
    AtomicBoolean failed = new AtomicBoolean();
    return LoopbackApi.answering("/v1/chat/completions", request -> {
      var messages = request.body().path("messages");
      String all = messages.toString();
      int assistantTurns = 0;
      for (var m : messages) if (m.path("role").asText().equals("assistant")) assistantTurns++;
      String content;
      if (all.contains(TREEBANK_QUESTION)) {
        if (!failed.getAndSet(true)) {
          return new LoopbackApi.Reply(500, Map.of(),
              "{\"error\": {\"message\": \"the model crashed\", \"type\": \"server_error\"}}", 0);
        }
        content = "I think it is probably some treebank, but I cannot say which.";
      } else if (assistantTurns == 0) {
        content = """
            I look for where the papers say what they were trained on.
            ```repl
            hits = search(context, "trained on")
            evidence = [s for s in (extract_section(h, "Our systems are trained", "newstest2013") for h in hits) if s]
            print(evidence)
            ```""";
      } else {
        content = "The Data section names the corpus.\n```repl\nFINAL_VAR(\"evidence\")\n```";
      }
      return LoopbackApi.Reply.ok(completion(content));
    });
  }

  /** A chat.completion body whose one choice says {@code content}. */
  private static String completion(String content) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(Map.of("id", "chatcmpl-1",
          "object", "chat.completion", "created", 1764460800, "model", "loopback-rlm",
          "choices", List.of(Map.of("index", 0, "finish_reason", "stop",
              "message", Map.of("role", "assistant", "content", content))),
          "usage", Map.of("prompt_tokens", 100, "completion_tokens", 40, "total_tokens", 140)));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String[] endpoint(LoopbackApi api) {
    return new String[] {"--set", "policy.openai.base_url=" + api.root() + "/v1",
        "--set", "policy.openai.model=loopback-rlm", "--set", "policy.openai.api_key_env=ARBOR_LOOPBACK_KEY",
        "--set", "policy.openai.max_retries=0", "--set", "policy.openai.timeout_seconds=20",
        // One tree of the few here ends at the failing server: an infrastructure failure the
        // step must tolerate (the default 10% would stop it).
        "--set", "rollouts.max_infra_failure_fraction=0.5"};
  }

  private static String[] concat(String[] a, String... b) {
    List<String> all = new ArrayList<>(List.of(a));
    all.addAll(List.of(b));
    return all.toArray(String[]::new);
  }

  @Test
  void anEndpointTeacherTeachesTheStudentAndAnEndpointPolicyIsEvaluated() throws Exception {
    SparkSession spark = TestEnv.spark();
    Warehouse w = new Warehouse(spark, warehouse);
    try (LoopbackApi api = rlmServer()) {
      TestEnv.Run run = TestEnv.run(concat(args("sft", "--run", "r3", "--teacher", "openai", "--set", "sft.samples=2"),
          endpoint(api)));
      System.out.print(run.out());
      assertEquals(0, run.code(), run.out() + run.err());
      // Two samples of each sft query: both corpus trees clean and kept; of the treebank trees one
      // met the HTTP 500 and one answered without code.
      assertTrue(run.out().contains("kept 2 of 4 teacher trees"), run.out());
      assertTrue(run.out().contains("dropped 1: " + TeacherTraces.NO_CODE), run.out());
      assertTrue(run.out().contains("dropped 1: " + TeacherTraces.NO_ANSWER + " (status policy_error)"), run.out());
      for (LoopbackApi.Request r : api.requests) {
        assertEquals(List.of("Bearer sk-loopback"), r.headers().get("authorization"));
        assertEquals("loopback-rlm", r.body().path("model").asText());
        assertEquals("system", r.body().path("messages").get(0).path("role").asText());
      }
    }
    Map<String, Double> metrics = new HashMap<>();
    for (Row m : w.read(Table.METRICS).where(col(Cols.RUN_ID).equalTo("r3")).collectAsList()) {
      metrics.put(m.getAs(Metric.NAME), m.getAs(Metric.VALUE));
    }
    assertEquals(2.0, metrics.get("sft.trees_kept"), metrics.toString());
    assertEquals(2.0, metrics.get("sft.trees_dropped"), metrics.toString());
    // The kept trees' two turns each, in the student's (byte-level) template.
    assertEquals(4.0, metrics.get("sft.turns") + metrics.get("sft.turns_too_long"), metrics.toString());
    assertTrue(metrics.get("sft.turns") > 0, metrics.toString());
    CheckpointStore store = new CheckpointStore(spark, w, ConfigLoader.load(List.of(), List.of()).checkpoints());
    assertEquals(List.of(0L), store.steps("r3", arbor.policy.checkpoint.TableVersion.LATEST));
    // The kept turns are the teacher's text, and the teacher ran as the openai policy.
    List<Row> kept = w.read(Table.ROLLOUT_TURNS).where(col(Cols.RUN_ID).equalTo("r3-sft-teacher")
        .and(col(arbor.tables.RolloutTurn.RESPONSE_TEXT).contains("FINAL_VAR"))).collectAsList();
    assertEquals(2, kept.size(), kept.toString());
    assertEquals(java.util.Set.of("openai"), new java.util.HashSet<>(w.read(Table.ROLLOUT_NODES)
        .where(col(Cols.RUN_ID).equalTo("r3-sft-teacher")).select("policy").as(org.apache.spark.sql.Encoders.STRING())
        .collectAsList()));

    // The same server as the evaluated policy, on the validation split (a fresh server: its
    // first treebank request fails again).
    Path report = root.resolve("report-openai");
    try (LoopbackApi api = rlmServer()) {
      TestEnv.Run eval = TestEnv.run(concat(args("eval", "--run", "r3", "--policy", "openai", "--report",
          report.toString()), endpoint(api)));
      System.out.print(eval.out());
      assertEquals(0, eval.code(), eval.out() + eval.err());
      assertTrue(eval.out().contains("eval: 2 trees"), eval.out());
    }
    Map<String, Row> rows = new HashMap<>();
    for (Row r : w.read(Table.EVAL).where(col(Cols.RUN_ID).equalTo("r3")).collectAsList()) {
      rows.put(r.getAs(Cols.QUERY_ID), r);
    }
    assertEquals(java.util.Set.of("validation-q1", "validation-q3"), rows.keySet(), rows.toString());
    for (Row r : rows.values()) {
      assertEquals("openai", r.getAs(Eval.POLICY));
      assertEquals("validation", r.getAs(Eval.SPLIT));
      assertEquals(0L, r.<Long>getAs(Cols.STEP));
      assertEquals(1, r.<Integer>getAs(Eval.NODES));
      assertEquals(0, r.<Integer>getAs(Eval.CHILDREN));
    }
    Row good = rows.get("validation-q1");
    assertEquals("final", good.getAs(Eval.STATUS));
    assertTrue(good.<Double>getAs(Eval.SPAN_F1) > 0.5, good.toString());
    assertTrue(good.<Double>getAs(Eval.REWARD) > 0, good.toString());
    assertTrue(good.<Long>getAs(Eval.LATENCY_MS) > 0 && good.<Long>getAs(Eval.GEN_TOKENS) > 0, good.toString());
    Row failed = rows.get("validation-q3");
    assertEquals(arbor.tables.Reward.INFRA_FAILURE, failed.getAs(Eval.STATUS), failed.toString());
    assertTrue(Files.readString(report.resolve("report.html")).contains("<td>openai</td><td>validation</td>"));
  }

  /**
   * The viewer over trees of a policy without tokens (the scripted expert): token columns are
   * null there, which once failed the whole site (Spark's ANSI size() of null is null).
   */
  @Test
  void theViewerShowsTheScriptedExpertsTreesWithTheirCodeAndChildren() throws Exception {
    TestEnv.Run eval = TestEnv.run(args("eval", "--run", "v", "--policy", "scripted", "--report", root.resolve("report-v").toString()));
    assertEquals(0, eval.code(), eval.out() + eval.err());
    Path site = root.resolve("view-scripted");
    TestEnv.Run view = TestEnv.run(args("view", "--run", "v-eval-scripted-validation", "--out", site.toString()));
    assertEquals(0, view.code(), view.out() + view.err());
    String page = Files.readString(site.resolve(arbor.jobs.view.ViewPaths.queryPage(0, "validation-q1")));
    assertTrue(page.contains("<pre class=\"code\">"), "the expert's code is shown");
    assertTrue(page.contains("validation-q1#0:root.0"), "and its first child");
  }
}
