package arbor.e2e;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The synthesize job end to end on 40 real QASPER papers and their questions: the real MiniLM
 * embeddings, MLlib LSH groups, the human and offline generators, the checks and the splits.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SynthesizeEndToEndTest {
  private Path warehouse;
  private TestEnv.Run first;

  private static final String[] SETTINGS = {
      "--set", "synthesis.target_queries=45", "--set", "synthesis.splits.validation=4", "--set", "synthesis.splits.test=6",
      "--set", "synthesis.splits.sft=5", "--set", "synthesis.groups.min_similarity=0.2",
      // 40 papers: fewer hashes per band keep LSH recall high on a corpus this small.
      "--set", "synthesis.groups.lsh_hashes_per_band=3"};

  @BeforeAll
  void ingestAndSynthesize() throws Exception {
    Path root = TestEnv.WORK.resolve("synthesize-e2e");
    arbor.jobs.cli.FileTrees.delete(root);
    Path papers = root.resolve("papers");
    QasperSample.write(papers, QasperSample.firstIds(40), "sample");
    warehouse = root.resolve("warehouse");
    TestEnv.Run ingest = TestEnv.run("ingest", "--papers", papers.toString(), "--set", "warehouse=" + warehouse);
    assertEquals(0, ingest.code(), ingest.out() + ingest.err());
    first = synthesize();
    assertEquals(0, first.code(), first.out() + first.err());
    System.out.println(first.out());
    TestEnv.spark().read().format("delta").load(warehouse + "/queries").orderBy("query_id").limit(40)
        .collectAsList().forEach(q -> System.out.println("QUERY [" + q.getAs("generator") + ", " + q.getAs("tier") + "] "
            + q.getAs("question") + " <- " + q.<Row>getList(q.fieldIndex("evidence")).stream()
                .map(e -> e.getAs("paper_id") + ": " + ((String) e.getAs("text")).substring(0, Math.min(80, ((String) e.getAs("text")).length())))
                .toList()));
  }

  private TestEnv.Run synthesize() {
    List<String> args = new ArrayList<>(List.of("synthesize", "--set", "warehouse=" + warehouse));
    args.addAll(List.of(SETTINGS));
    return TestEnv.run(args.toArray(String[]::new));
  }

  private List<Row> table(String name) {
    return TestEnv.spark().read().format("delta").load(warehouse + "/" + name).collectAsList();
  }

  private Map<String, List<String>> paragraphs() {
    Map<String, List<String>> out = new HashMap<>();
    for (Row r : table("papers")) out.put(r.getAs("paper_id"), r.getList(r.fieldIndex("clean_paragraphs")));
    return out;
  }

  @Test
  @Order(1)
  void everyPaperHasAUnitVectorFromTheRealModel() {
    List<Row> embeddings = table("paper_embeddings");
    assertEquals(40, embeddings.size());
    for (Row r : embeddings) {
      assertEquals("all-minilm-l6-v2-q", r.getAs("model"));
      List<Float> v = r.getList(r.fieldIndex("embedding"));
      assertEquals(384, v.size());
      double norm = 0;
      for (float x : v) norm += x * x;
      assertEquals(1.0, norm, 1e-3);
    }
    assertTrue(first.out().contains("embedded 40 paper(s) with all-minilm-l6-v2-q"), first.out());
  }

  @Test
  @Order(2)
  void groupsAreTheirSeedAndUpToNineOtherDistinctPapers() {
    List<Row> groups = table("paper_groups");
    assertEquals(15, groups.size(), "ceil(45 / 3) seeds");
    Set<String> ids = new HashSet<>();
    Map<String, Integer> membership = new HashMap<>();
    for (Row g : groups) {
      List<String> members = g.getList(g.fieldIndex("paper_ids"));
      assertTrue(ids.add(g.getAs("group_id")));
      assertEquals(g.getAs("seed_paper_id"), members.get(0), "the seed comes first");
      assertTrue(members.size() >= 1 && members.size() <= 10, members.toString());
      assertEquals(members.size(), new HashSet<>(members).size(), "no paper twice in a group");
      members.forEach(m -> membership.merge(m, 1, Integer::sum));
    }
    assertTrue(groups.stream().anyMatch(g -> g.getList(g.fieldIndex("paper_ids")).size() > 1), "some seed has neighbours");
    assertTrue(membership.values().stream().anyMatch(n -> n > 1), "groups may overlap: " + membership);
  }

  @Test
  @Order(3)
  void everyQueryPassesTheChecksAndHasItsTier() {
    Map<String, List<String>> paragraphs = paragraphs();
    Map<String, List<String>> groups = new HashMap<>();
    for (Row g : table("paper_groups")) groups.put(g.getAs("group_id"), g.getList(g.fieldIndex("paper_ids")));
    List<Row> queries = table("queries");
    assertFalse(queries.isEmpty());
    Map<String, Integer> perGroup = new HashMap<>();
    for (Row q : queries) {
      List<Row> evidence = q.getList(q.fieldIndex("evidence"));
      assertFalse(evidence.isEmpty());
      Set<String> papers = new HashSet<>();
      for (Row e : evidence) {
        String paper = e.getAs("paper_id");
        String text = e.getAs("text");
        assertTrue(groups.get(q.getAs("group_id")).contains(paper), "evidence paper in the group");
        assertTrue(paragraphs.get(paper).stream().anyMatch(p -> p.contains(text)), "verbatim: " + text);
        papers.add(paper);
      }
      String tier = q.getAs("tier");
      String expected = papers.size() == 1 ? "singleton" : papers.size() == 2 ? "focused" : papers.size() <= 4 ? "mid-range" : "wide-net";
      assertEquals(expected, tier);
      perGroup.merge(q.getAs("group_id"), 1, Integer::sum);
    }
    assertTrue(perGroup.values().stream().allMatch(n -> n <= 3), perGroup.toString());
    assertTrue(queries.stream().anyMatch(q -> "offline".equals(q.getAs("generator"))));
    assertTrue(queries.stream().anyMatch(q -> "human".equals(q.getAs("generator"))));
    assertTrue(queries.stream().anyMatch(q -> !"singleton".equals(q.getAs("tier"))), "offline queries span several papers");
  }

  @Test
  @Order(4)
  void humanQueriesCarryTheirAnnotatedEvidence() {
    Map<String, Row> questions = new HashMap<>();
    for (Row q : table("source_questions")) questions.put(q.getAs("question_id"), q);
    Map<String, String> titles = new HashMap<>();
    for (Row p : table("papers")) titles.put(p.getAs("paper_id"), p.getAs("title"));
    Set<String> sources = new HashSet<>();
    for (Row q : table("queries")) {
      if (!"human".equals(q.getAs("generator"))) continue;
      Row source = questions.get((String) q.getAs("source_id"));
      assertNotNull(source, "a human query names its QASPER question");
      assertTrue(sources.add(q.getAs("source_id")), "a question is used once");
      assertTrue((Boolean) source.getAs("answerable"));
      assertEquals(arbor.synthesis.HumanGenerator.scoped(source.getAs("question"), titles.get((String) source.getAs("paper_id"))),
          q.getAs("question"), "scoped to its paper by title");
      assertTrue(((String) q.getAs("question")).startsWith("In the paper \""), (String) q.getAs("question"));
      List<String> texts = q.<Row>getList(q.fieldIndex("evidence")).stream().map(e -> (String) e.getAs("text")).toList();
      boolean fromOneAnnotator = false;
      for (scala.collection.Seq<String> annotator : source.<scala.collection.Seq<String>>getList(source.fieldIndex("evidence"))) {
        List<String> annotated = scala.jdk.javaapi.CollectionConverters.asJava(annotator).stream().map(String::strip).toList();
        if (annotated.containsAll(texts)) fromOneAnnotator = true;
      }
      assertTrue(fromOneAnnotator, "evidence is one annotator's paragraphs: " + texts);
      assertEquals("singleton", q.getAs("tier"));
    }
  }

  @Test
  @Order(5)
  void splitsHaveTheirSizesAndNeverShareAGroup() {
    Map<String, Set<String>> groupsBySplit = new HashMap<>();
    Map<String, Integer> sizes = new HashMap<>();
    for (Row q : table("queries")) {
      groupsBySplit.computeIfAbsent(q.getAs("split"), k -> new HashSet<>()).add(q.getAs("group_id"));
      sizes.merge(q.getAs("split"), 1, Integer::sum);
    }
    // Whole groups of up to 3 queries fill each split without passing its size: short by at most 2.
    for (var expected : Map.of("validation", 4, "test", 6, "sft", 5).entrySet()) {
      int got = sizes.getOrDefault(expected.getKey(), 0);
      assertTrue(got <= expected.getValue() && got > expected.getValue() - 3, expected + " vs " + sizes);
    }
    List<String> splits = new ArrayList<>(groupsBySplit.keySet());
    for (int i = 0; i < splits.size(); i++) {
      for (int j = i + 1; j < splits.size(); j++) {
        Set<String> shared = new HashSet<>(groupsBySplit.get(splits.get(i)));
        shared.retainAll(groupsBySplit.get(splits.get(j)));
        assertTrue(shared.isEmpty(), splits.get(i) + " and " + splits.get(j) + " share " + shared);
      }
    }
  }

  @Test
  @Order(6)
  void theSummaryCountsGroupsQueriesAndDrops() {
    String out = first.out();
    assertTrue(out.contains("synthesize: 15 new group(s)"), out);
    assertTrue(out.contains("per tier:"), out);
    assertTrue(out.contains("per split:"), out);
    assertTrue(out.contains("per generator:"), out);
    assertTrue(out.contains("candidate(s) dropped by the checks"), out);
  }

  @Test
  @Order(7)
  void aSecondRunIsDeterministicAndChangesNothing() {
    List<Row> groupsBefore = table("paper_groups");
    List<Row> queriesBefore = table("queries");
    TestEnv.Run again = synthesize();
    assertEquals(0, again.code(), again.out() + again.err());
    assertTrue(again.out().contains("synthesize: 0 new group(s)"), again.out());
    assertTrue(again.out().contains("embedded 0 paper(s)"), again.out());
    assertEquals(new HashSet<>(groupsBefore), new HashSet<>(table("paper_groups")));
    assertEquals(new HashSet<>(queriesBefore), new HashSet<>(table("queries")));

    // The same seed into a fresh warehouse gives the same groups and the same queries.
    Path other = warehouse.resolveSibling("warehouse-again");
    TestEnv.Run fresh = TestEnv.run("ingest", "--papers", warehouse.resolveSibling("papers").toString(), "--set", "warehouse=" + other);
    assertEquals(0, fresh.code(), fresh.err());
    List<String> args = new ArrayList<>(List.of("synthesize", "--set", "warehouse=" + other));
    args.addAll(List.of(SETTINGS));
    assertEquals(0, TestEnv.run(args.toArray(String[]::new)).code());
    assertEquals(ids(groupsBefore, "group_id", "paper_ids"), ids(TestEnv.spark().read().format("delta").load(other + "/paper_groups").collectAsList(), "group_id", "paper_ids"));
    assertEquals(ids(queriesBefore, "query_id", "split"), ids(TestEnv.spark().read().format("delta").load(other + "/queries").collectAsList(), "query_id", "split"));
  }

  private static Set<String> ids(List<Row> rows, String key, String value) {
    Set<String> out = new HashSet<>();
    rows.forEach(r -> out.add(r.getAs(key) + "=" + r.get(r.fieldIndex(value))));
    return out;
  }

  @Test
  @Order(8)
  void theLlmGeneratorWritesWholeRepliesAsQueriesAndFailuresAsErrors() throws Exception {
    // A loopback server that speaks the chat completions API: groups whose first paper's title
    // starts with A-M get a valid reply, the others get prose instead of JSON, every time.
    var server = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    server.createContext("/v1/chat/completions", exchange -> {
      var request = json.readTree(exchange.getRequestBody());
      String group = request.path("messages").get(1).path("content").asText();
      char initial = Character.toUpperCase(group.substring(group.indexOf("Title: ") + 7).charAt(0));
      String content = initial <= 'M'
          ? "{\"queries\": [{\"question\": \"What do the first two papers set out to do?\", \"paragraphs\": [\"P1.1\", \"P2.1\"]}]}"
          : "I would ask about the methods.";
      byte[] body = json.writeValueAsBytes(Map.of("id", "c", "object", "chat.completion", "created", 0, "model", "m",
          "choices", List.of(Map.of("index", 0, "finish_reason", "stop", "message", Map.of("role", "assistant", "content", content)))));
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      try (var out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    try {
      Path conf = Files.writeString(warehouse.resolveSibling("llm.conf"), "synthesis.llm {\n  base_url = \"http://127.0.0.1:"
          + server.getAddress().getPort() + "/v1\"\n  api_key_env = \"\"\n  attempts = 2\n  backoff_millis = 1\n}\n");
      Set<String> before = new HashSet<>();
      table("paper_groups").forEach(g -> before.add(g.getAs("group_id")));
      TestEnv.Run run = TestEnv.run("synthesize", "--conf", conf.toString(), "--set", "warehouse=" + warehouse,
          "--set", "synthesis.seed=99", "--set", "synthesis.target_queries=30", "--set", "synthesis.generators=[llm]",
          "--set", "synthesis.groups.lsh_hashes_per_band=3", "--set", "synthesis.groups.min_similarity=0.2");
      assertEquals(0, run.code(), run.out() + run.err());
      System.out.println(run.out());

      Map<String, List<String>> paragraphs = paragraphs();
      Set<String> withQueries = new HashSet<>();
      for (Row q : table("queries")) {
        if (!"llm".equals(q.getAs("generator"))) continue;
        assertFalse(before.contains((String) q.getAs("group_id")), "queries only for new groups");
        assertEquals("What do the first two papers set out to do?", q.getAs("question"));
        assertEquals("focused", q.getAs("tier"));
        for (Row e : q.<Row>getList(q.fieldIndex("evidence"))) {
          assertTrue(paragraphs.get((String) e.getAs("paper_id")).contains((String) e.getAs("text")), "a whole clean paragraph");
        }
        withQueries.add(q.getAs("group_id"));
      }
      // Rows of generator "*" mark groups that no generator could serve (done, not failed): not llm failures.
      List<Row> errors = table("synthesis_errors").stream()
          .filter(e -> !arbor.jobs.synthesize.DatasetBuilder.NO_QUERY.equals(e.getAs("generator"))).toList();
      assertFalse(withQueries.isEmpty(), run.out());
      assertFalse(errors.isEmpty(), run.out());
      for (Row e : errors) {
        assertEquals("llm", e.getAs("generator"));
        assertTrue(((String) e.getAs("reason")).startsWith("after 2 attempt(s): invalid reply: not JSON"), (String) e.getAs("reason"));
        assertFalse(withQueries.contains((String) e.getAs("group_id")), "a failed group has no half-written queries");
      }
      assertTrue(run.out().contains(errors.size() + " group(s) failed in a generator"), run.out());
    } finally {
      server.stop(0);
    }
  }
}
