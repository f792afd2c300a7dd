package arbor.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.ApiKeys;
import arbor.conf.ArborConfig;
import arbor.jobs.conf.ConfigLoader;
import arbor.rlm.TreeSeed;
import arbor.rlm.policy.NodePath;
import arbor.rlm.policy.endpoint.LoopbackApi;
import arbor.rlm.runtime.SharedRuntimes;
import arbor.rlm.runtime.RunTrees;
import arbor.pipelines.rollouts.RolloutWriter;
import arbor.pipelines.rollouts.Rollouts;
import arbor.tables.Cols;
import arbor.tables.RolloutNode;
import arbor.tables.RolloutTurn;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
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
 * The rollout stage on local Spark with real Delta tables, real GraalPy sandboxes and a real (tiny)
 * DJL model: trees on the executors, written idempotently to rollout_nodes and rollout_turns.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RolloutsEndToEndTest {
  static final String MT = """
      Subword Units for Open-Vocabulary Translation
      Abstract
      Rare words are split into subword units before translation.

      1 Data
      Our systems are trained on the WMT 2015 English-German parallel corpus of 4.2 million sentence
      pairs, and tuned on newstest2013.

      2 Results
      Subword units improve BLEU by 1.1 points on newstest2015 over a word-level baseline.
      """;
  static final String PARSER = """
      A Fast Greedy Dependency Parser
      Abstract
      A transition-based parser with a small neural classifier.

      1 Training data
      The parser is trained on sections 2-21 of the Penn Treebank converted to Stanford dependencies.

      2 Speed
      It parses about 1,000 sentences per second on one core.
      """;
  static final String FOLDING = """
      Kinetics of Protein Folding
      Abstract
      Folding rates of small proteins are measured.

      1 Methods
      Rates were measured by stopped-flow fluorescence at 25 degrees Celsius.
      """;

  static final StructType PAPERS = new StructType().add("paper_id", DataTypes.StringType).add("noisy_text", DataTypes.StringType);
  static final StructType GROUPS = new StructType().add("group_id", DataTypes.StringType)
      .add("paper_ids", DataTypes.createArrayType(DataTypes.StringType));
  static final StructType QUERIES = new StructType().add("query_id", DataTypes.StringType)
      .add("group_id", DataTypes.StringType).add("question", DataTypes.StringType);

  /** Counts the executor-side faults this JVM injected (local mode: the executor is this JVM). */
  static final AtomicInteger FAULTS = new AtomicInteger();

  private Path root;
  private SparkSession spark;
  private Dataset<Row> queries;
  private Dataset<Row> groups;
  private Dataset<Row> papers;

  @BeforeAll
  void tables() throws Exception {
    spark = TestEnv.spark();
    root = TestEnv.WORK.resolve("rollouts-e2e");
    arbor.jobs.cli.FileTrees.delete(root);
    TinyCorpus corpus = TinyCorpus.of(spark);
    papers = corpus.papers();
    groups = corpus.groups();
    queries = spark.createDataFrame(List.of(
        RowFactory.create("q1", "g1", "Which training corpus do the systems train on?"),
        RowFactory.create("q2", "g1", "How much does BLEU improve?"),
        RowFactory.create("q3", "g2", "Which treebank is the parser trained on?")), QUERIES);
  }

  @AfterAll
  void close() {
    SharedRuntimes.closeAll();
  }

  ArborConfig config(String warehouse, String... settings) {
    List<String> all = new ArrayList<>(List.of("warehouse=" + warehouse,
        "rlm.prompt_dir=" + TestEnv.REPO.resolve("conf/prompts"), "rollouts.samples=4", "rollouts.trees_per_task=4",
        "sandbox.workers=1", "sandbox.worker_heap_mb=768", "sandbox.jvm_options=[\"-XX:TieredStopAtLevel=1\"]"));
    all.addAll(List.of(settings));
    return ConfigLoader.load(List.of(), all);
  }

  Warehouse warehouse(String root) {
    return new Warehouse(spark, root);
  }

  List<Row> read(Warehouse w, Table t, String runId, long step) {
    return w.read(t).filter(org.apache.spark.sql.functions.col(Cols.RUN_ID).equalTo(runId)
        .and(org.apache.spark.sql.functions.col(Cols.STEP).equalTo(step))).collectAsList();
  }

  /** Checks what every written step must hold; returns the nodes by id. */
  Map<String, Row> checkComplete(List<Row> nodes, List<Row> turns, int trees) {
    Map<String, Row> byId = new HashMap<>();
    for (Row n : nodes) {
      assertNull(byId.put(n.getAs(Cols.NODE_ID), n), "duplicate node " + n.getAs(Cols.NODE_ID));
    }
    Set<String> roots = nodes.stream().filter(n -> n.getAs(RolloutNode.PARENT_ID) == null)
        .map(n -> n.<String>getAs(Cols.QUERY_ID) + "#" + n.<Integer>getAs(Cols.SAMPLE)).collect(Collectors.toSet());
    assertEquals(trees, roots.size(), "one root per (query, sample): " + roots);
    assertEquals(trees, nodes.stream().filter(n -> n.getAs(RolloutNode.PARENT_ID) == null).count());
    Set<String> turnKeys = new HashSet<>();
    Map<String, Integer> turnsPerNode = new HashMap<>();
    for (Row t : turns) {
      String id = t.getAs(Cols.NODE_ID);
      assertTrue(byId.containsKey(id), "turn of an unknown node " + id);
      assertTrue(turnKeys.add(id + "/" + t.<Integer>getAs(Cols.TURN)), "duplicate turn " + id);
      turnsPerNode.merge(id, 1, Integer::sum);
    }
    for (Row n : nodes) {
      assertEquals(n.<Integer>getAs(RolloutNode.TURNS), turnsPerNode.getOrDefault(n.<String>getAs(Cols.NODE_ID), 0),
          "turns of " + n.getAs(Cols.NODE_ID));
      String parent = n.getAs(RolloutNode.PARENT_ID);
      if (parent != null) {
        assertTrue(byId.containsKey(parent), "the parent of " + n.getAs(Cols.NODE_ID) + " is missing");
        int index = n.getAs(RolloutNode.CHILD_INDEX);
        assertTrue(n.<String>getAs(Cols.NODE_ID).endsWith("." + index), "child index " + index + " of " + n.getAs(Cols.NODE_ID));
      } else {
        assertEquals(-1, n.<Integer>getAs(RolloutNode.CHILD_INDEX));
      }
    }
    return byId;
  }

  @Test
  void theScriptedExpertsTreesAreWrittenOnceDifferBySampleAndARerunReplacesThemWithTheSameTrees() {
    String wh = root.resolve("scripted").toString();
    ArborConfig config = config(wh, "rollouts.policy=scripted", "rollouts.sandbox=workers");
    Warehouse w = warehouse(wh);
    RolloutWriter.Written first = step(new Rollouts(config), w, "run-a", 0);
    assertEquals(12, first.trees());
    assertEquals(0, first.infraFailures());
    List<Row> nodes = read(w, Table.ROLLOUT_NODES, "run-a", 0);
    List<Row> turns = read(w, Table.ROLLOUT_TURNS, "run-a", 0);
    Map<String, Row> byId = checkComplete(nodes, turns, 12);
    // The expert delegates from the multi-paper roots: children exist, and they answered.
    assertTrue(nodes.stream().anyMatch(n -> n.<Integer>getAs(RolloutNode.DEPTH) == 1));
    assertTrue(nodes.stream().filter(n -> n.getAs(RolloutNode.PARENT_ID) == null)
        .allMatch(n -> "final".equals(n.getAs(RolloutNode.STATUS))), "every root submitted");
    for (Row t : turns) {
      assertEquals("text", t.getAs(RolloutTurn.FINISH_REASON));
      assertFalse(t.<Boolean>getAs(RolloutTurn.TRUNCATED));
      assertNull(t.getAs(Cols.RESPONSE_IDS));
      Row node = byId.get(t.<String>getAs(Cols.NODE_ID));
      String path = t.<String>getAs(Cols.NODE_ID).substring(t.<String>getAs(Cols.NODE_ID).indexOf(':') + 1);
      long treeSeed = TreeSeed.of("run-a", 0, node.getAs(Cols.QUERY_ID), node.getAs(Cols.SAMPLE));
      assertEquals(TreeSeed.turn(treeSeed, NodePath.parse(path), t.getAs(Cols.TURN)), t.<Long>getAs(RolloutTurn.SEED));
      assertEquals("scripted", node.getAs(RolloutNode.POLICY));
    }
    // The four samples of q1 are not one tree four times: a GRPO group with variance.
    Map<Integer, List<String>> q1 = codeBySample(turns, "q1");
    assertTrue(new HashSet<>(q1.values()).size() >= 3, "the 4 samples of q1 wrote " + new HashSet<>(q1.values()).size() + " distinct trees");

    RolloutWriter.Written again = step(new Rollouts(config), w, "run-a", 0);
    List<Row> nodes2 = read(w, Table.ROLLOUT_NODES, "run-a", 0);
    List<Row> turns2 = read(w, Table.ROLLOUT_TURNS, "run-a", 0);
    checkComplete(nodes2, turns2, 12);
    assertEquals(nodes.size(), nodes2.size());
    assertEquals(q1, codeBySample(turns2, "q1"), "a rerun of the step draws the same trees");
    assertEquals(first.trees(), again.trees());
  }

  /** Every response of a query's trees, per sample, ordered by node and turn. */
  static Map<Integer, List<String>> codeBySample(List<Row> turns, String queryId) {
    Map<Integer, List<String>> out = new HashMap<>();
    turns.stream().filter(t -> t.<String>getAs(Cols.NODE_ID).startsWith(queryId + "#"))
        .sorted(java.util.Comparator.comparing((Row t) -> t.<String>getAs(Cols.NODE_ID)).thenComparing(t -> t.<Integer>getAs(Cols.TURN)))
        .forEach(t -> {
          String id = t.getAs(Cols.NODE_ID);
          int sample = Integer.parseInt(id.substring(id.indexOf('#') + 1, id.indexOf(':')));
          out.computeIfAbsent(sample, k -> new ArrayList<>()).add(id.substring(id.indexOf(':')) + " " + t.getAs(RolloutTurn.RESPONSE_TEXT));
        });
    return out;
  }

  @Test
  void aTaskThatFailsOnItsFirstAttemptIsRetriedAndLeavesNoDuplicateAndNoGap() {
    String wh = root.resolve("retry").toString();
    ArborConfig config = config(wh, "rollouts.policy=scripted", "rollouts.sandbox=in_process", "rollouts.samples=2");
    Warehouse w = warehouse(wh);
    assertEquals("local[2,2]", spark.sparkContext().master(), "the retry needs a second task attempt");
    int before = FAULTS.get();
    // The first attempt of the first task dies after its first tree; Spark retries it.
    RunTrees.TaskProbe fault = (partition, attempt, ended) -> {
      if (partition == 0 && attempt == 0 && ended == 1) {
        FAULTS.incrementAndGet();
        throw new IllegalStateException("injected fault: the executor dies after one tree");
      }
    };
    RolloutWriter.Written written = step(new Rollouts(config).withProbe(fault), w, "run-r", 5);
    assertEquals(before + 1, FAULTS.get(), "the fault was injected once");
    assertEquals(6, written.trees());
    checkComplete(read(w, Table.ROLLOUT_NODES, "run-r", 5), read(w, Table.ROLLOUT_TURNS, "run-r", 5), 6);
  }

  @Test
  void treesWhoseEndpointNeverAnswersAreRowsWithTheirStatusUntilTooManyFailTheStep() {
    String wh = root.resolve("endpoint").toString();
    // Nothing listens on port 9: every request fails at once, after no retry. PATH stands in for a
    // key variable that is set.
    String[] endpoint = {"rollouts.policy=openai", "rollouts.sandbox=in_process", "policy.openai.base_url=http://127.0.0.1:9/v1",
        "policy.openai.api_key_env=PATH", "policy.openai.max_retries=0", "policy.openai.timeout_seconds=2", "rollouts.samples=1"};
    Warehouse w = new Warehouse(spark, wh);
    List<String> tolerant = new ArrayList<>(List.of(endpoint));
    tolerant.add("rollouts.max_infra_failure_fraction=1.0");
    RolloutWriter.Written written = step(withKeys(config(wh, tolerant.toArray(String[]::new))), w, "run-e", 0);
    assertEquals(3, written.trees());
    assertEquals(3, written.infraFailures());
    List<Row> nodes = read(w, Table.ROLLOUT_NODES, "run-e", 0);
    assertEquals(3, nodes.size());
    for (Row n : nodes) {
      assertEquals("policy_error", n.getAs(RolloutNode.STATUS));
      assertNotNull(n.getAs(RolloutNode.ERROR));
    }
    RolloutWriter.InfraFailures failed = assertThrows(RolloutWriter.InfraFailures.class,
        () -> step(withKeys(config(wh, endpoint)), w, "run-e", 1));
    assertTrue(failed.getMessage().contains("rollouts.max_infra_failure_fraction"), failed.getMessage());
    assertTrue(failed.getMessage().contains("3 of the 3 trees"), failed.getMessage());
    assertEquals(0, read(w, Table.ROLLOUT_NODES, "run-e", 1).size(), "a failed step writes no rows");
  }

  @Test
  void anEndpointKeyTravelsWithTheStageAndTheExecutorsNeverReadTheirEnvironment() {
    String wh = root.resolve("keys").toString();
    // PATH is set in every JVM here; a stage given no keys still has none on its executors.
    ArborConfig c = config(wh, "rollouts.policy=openai", "rollouts.sandbox=in_process", "policy.openai.base_url=http://127.0.0.1:9/v1",
        "policy.openai.api_key_env=PATH", "rollouts.samples=1");
    Exception e = assertThrows(Exception.class, () -> step(new Rollouts(c), new Warehouse(spark, wh), "run-k", 0));
    String text = String.valueOf(e.getMessage()) + (e.getCause() == null ? "" : e.getCause().getMessage());
    assertTrue(text.contains("the API key variable PATH (policy.openai.api_key_env) is not set"), text);
    assertEquals("ApiKeys[PATH]", ApiKeys.read(c, System.getenv()).toString(), "a key's text names its variable, not its value");
  }

  /** One step of {@code rollouts} over the test's queries, written to {@code w}. */
  RolloutWriter.Written step(Rollouts rollouts, Warehouse w, String runId, long step) {
    return rollouts.write(w, rollouts.tasks(queries, groups, papers, Rollouts.Step.of(runId, step, 0)));
  }

  /** The stage with the keys its configuration names, read as a job reads them. */
  static Rollouts withKeys(ArborConfig c) {
    return new Rollouts(c).withKeys(ApiKeys.read(c, System.getenv()));
  }

  @Test
  void theTinyDjlModelWritesTrainingSamplesWithTheirSamplingRecord() throws Exception {
    Path model = root.resolve("tiny-model");
    TinyCorpus.student(model);
    String wh = root.resolve("djl").toString();
    ArborConfig config = config(wh, "rollouts.policy=djl", "rollouts.sandbox=in_process", "policy.djl.model_dir=" + model,
        "policy.djl.sampling.max_new_tokens=12", "policy.djl.sampling.top_k=50", "rlm.max_turns=2", "rollouts.samples=2",
        "rlm.prompts=reduced");
    Warehouse w = new Warehouse(spark, wh);
    RolloutWriter.Written written = step(new Rollouts(config), w, "run-d", 0);
    assertEquals(6, written.trees());
    List<Row> nodes = read(w, Table.ROLLOUT_NODES, "run-d", 0);
    List<Row> turns = read(w, Table.ROLLOUT_TURNS, "run-d", 0);
    checkComplete(nodes, turns, 6);
    assertEquals(12, turns.size(), "a random model uses both turns of each root");
    Set<List<Integer>> responses = new HashSet<>();
    for (Row t : turns) {
      List<Integer> ids = t.getList(t.fieldIndex(Cols.RESPONSE_IDS));
      List<Float> lps = t.getList(t.fieldIndex(Cols.LOGPROBS));
      assertFalse(t.getList(t.fieldIndex(Cols.PROMPT_IDS)).isEmpty());
      assertEquals(ids.size(), lps.size());
      assertTrue(ids.size() >= 1 && ids.size() <= 12);
      String finish = t.getAs(RolloutTurn.FINISH_REASON);
      assertTrue(Set.of("stop", "length").contains(finish), finish);
      assertEquals("length".equals(finish), t.<Boolean>getAs(RolloutTurn.TRUNCATED));
      if ("length".equals(finish)) {
        assertEquals(12, ids.size());
      }
      assertEquals(1.0, t.<Double>getAs(RolloutTurn.TEMPERATURE));
      assertEquals(50, t.<Integer>getAs(RolloutTurn.TOP_K));
      assertEquals(0L, t.<Long>getAs(Cols.POLICY_VERSION));
      responses.add(ids);
    }
    assertTrue(responses.size() >= 10, "12 sampled turns, only " + responses.size() + " distinct");
    assertTrue(nodes.stream().allMatch(n -> "djl".equals(n.getAs(RolloutNode.POLICY))));
  }

  /** The papers' texts by id, as the trees see them. */
  Map<String, String> paperTexts() {
    Map<String, String> out = new HashMap<>();
    for (Row p : papers.collectAsList()) out.put(p.getString(0), p.getString(1));
    return out;
  }

  /** Every span of every final answer is a verbatim piece of some paper. */
  void checkVerbatim(List<Row> nodes) throws Exception {
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    for (Row n : nodes) {
      String answer = n.getAs(RolloutNode.FINAL_ANSWER);
      assertNotNull(answer, "node " + n.getAs(Cols.NODE_ID) + " ended " + n.getAs(RolloutNode.STATUS) + ": " + n.getAs(RolloutNode.ERROR));
      for (var span : json.readTree(answer)) {
        assertTrue(paperTexts().values().stream().anyMatch(t -> t.contains(span.asText())), "not verbatim: " + span);
      }
    }
  }

  @Test
  void replayAndAnthropicTeachersWriteTheirTreesThroughTheSameStage() throws Exception {
    // Replay: the root delegates its first paper to a child, which cuts the paper's first line.
    String root = """
        ```repl
        papers = context if isinstance(context, dict) else {"only": context}
        first = sorted(papers)[0]
        answers = rlm_query_batched(["Find the title. Paper: " + first], [papers[first]])
        evidence = [s for a in answers if isinstance(a, list) for s in a]
        FINAL_VAR("evidence")
        ```""";
    String child = "```repl\nFINAL([context.strip().splitlines()[0]])\n```";
    java.nio.file.Files.createDirectories(this.root);
    Path replay = this.root.resolve("replay.json");
    java.nio.file.Files.writeString(replay, new com.fasterxml.jackson.databind.ObjectMapper()
        .writeValueAsString(Map.of("root", List.of(root), "root.0", List.of(child))));
    String wh = this.root.resolve("teachers").toString();
    Warehouse w = new Warehouse(spark, wh);
    RolloutWriter.Written replayed = step(new Rollouts(config(wh, "rollouts.policy=replay", "rollouts.sandbox=in_process",
        "rollouts.samples=1", "policy.replay.file=" + replay)), w, "run-t", 0);
    assertEquals(3, replayed.trees());
    assertEquals(0, replayed.infraFailures());
    List<Row> nodes = read(w, Table.ROLLOUT_NODES, "run-t", 0);
    checkComplete(nodes, read(w, Table.ROLLOUT_TURNS, "run-t", 0), 3);
    assertEquals(6, nodes.size(), "three roots, one child each");
    for (Row n : nodes) {
      assertEquals("final", n.getAs(RolloutNode.STATUS), String.valueOf(n));
      assertEquals("replay", n.getAs(RolloutNode.POLICY));
    }
    checkVerbatim(nodes);

    // Anthropic's messages API (a loopback server): every node answers from its context at once.
    String reply = "```repl\npapers = context if isinstance(context, dict) else {'only': context}\n"
        + "FINAL([papers[sorted(papers)[0]].strip().splitlines()[0]])\n```";
    try (LoopbackApi api = new LoopbackApi("/v1/messages", n -> LoopbackApi.Reply.ok("""
        {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
         "content": [{"type": "text", "text": %s}], "stop_reason": "end_turn", "stop_sequence": null,
         "usage": {"input_tokens": 20, "output_tokens": 7}}""".formatted(
            com.fasterxml.jackson.databind.node.TextNode.valueOf(reply))))) {
      RolloutWriter.Written answered = step(withKeys(config(wh, "rollouts.policy=anthropic", "rollouts.sandbox=in_process",
          "rollouts.samples=1", "policy.anthropic.base_url=" + api.root(), "policy.anthropic.api_key_env=PATH",
          "policy.anthropic.temperature=0.3", "policy.anthropic.max_retries=0")), w, "run-t", 1);
      assertEquals(3, answered.trees());
      assertEquals(3, api.requests.size(), "one request per root turn");
      assertEquals("claude-sonnet-4-6", api.requests.getFirst().body().path("model").asText());
    }
    List<Row> anthropic = read(w, Table.ROLLOUT_NODES, "run-t", 1);
    assertEquals(3, anthropic.size());
    for (Row n : anthropic) {
      assertEquals("final", n.getAs(RolloutNode.STATUS), String.valueOf(n));
      assertEquals("anthropic", n.getAs(RolloutNode.POLICY));
    }
    checkVerbatim(anthropic);
    for (Row t : read(w, Table.ROLLOUT_TURNS, "run-t", 1)) assertEquals(0.3, t.<Double>getAs(RolloutTurn.TEMPERATURE));
    // The replayed step is untouched by the next one.
    assertEquals(6, read(w, Table.ROLLOUT_NODES, "run-t", 0).size());
  }
}
