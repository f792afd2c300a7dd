package arbor.pipelines.judge;

import arbor.judge.JudgeSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.JudgeSettings;
import arbor.conf.JudgeSettings.RubricSettings;
import arbor.conf.JudgeSettings.RubricSettings.ResponseFormat;
import arbor.pipelines.advantages.Trees;
import arbor.pipelines.spark.TestSpark;
import arbor.tables.Reward;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** The judge stage on local Spark: roots only, infrastructure failures, and a failing rubric endpoint. */
class JudgeTest {
  static final SparkSession SPARK = TestSpark.spark();
  static final ObjectMapper JSON = new ObjectMapper();
  static final String EVIDENCE = PapersForTests.A.get(1);

  static JudgeSettings settings(JudgeSettings.Kind kind, RubricSettings rubric) {
    return new JudgeSettings(kind, 2, new JudgeSettings.EmbeddedJudgeSettings(0.5), rubric);
  }

  static Map<String, Row> byNode(Dataset<Row> rewards) {
    Map<String, Row> out = new HashMap<>();
    for (Row r : rewards.collectAsList()) out.put(r.getAs("node_id"), r);
    return out;
  }

  static String answer(String... spans) throws Exception {
    return JSON.writeValueAsString(List.of(spans));
  }

  /** The rubric judge against the loopback {@code server}: no key, temperature 0, 20 ms backoff. */
  static RubricSettings rubric(HttpServer server, double timeoutSeconds, int attempts) {
    return new RubricSettings("http://127.0.0.1:" + server.getAddress().getPort() + "/v1", "judge", "", 0.0, 128,
        timeoutSeconds, attempts, 20, ResponseFormat.JSON_SCHEMA, "../conf/judge/rubric.md", 4000);
  }

  /** Requests of the root being judged in flight at the loopback rubric endpoint, and their most at once. */
  static final AtomicInteger IN_FLIGHT = new AtomicInteger();
  static final AtomicInteger MOST_IN_FLIGHT = new AtomicInteger();

  /**
   * A loopback endpoint speaking the chat-completions API whose reply depends on the question:
   * "errors" gets HTTP 500, "slow" answers after 8 s, "garbage" is not JSON, "busy..." takes
   * 300 ms and is counted in flight; any other question gets precision 6, recall 10.
   */
  static HttpServer rubricServer() throws java.io.IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/v1/chat/completions", exchange -> {
      String user = JSON.readTree(exchange.getRequestBody().readAllBytes()).path("messages").get(1).path("content").asText();
      String question = user.lines().skip(1).findFirst().orElse("");
      int status = question.equals("errors") ? 500 : 200;
      String content = switch (question) {
        case "garbage" -> "PRECISION: high, RECALL: low";
        default -> "{\"precision\": 6, \"recall\": 10, \"reasoning\": \"covers it, with padding\"}";
      };
      boolean busy = question.startsWith("busy");
      if (busy) MOST_IN_FLIGHT.accumulateAndGet(IN_FLIGHT.incrementAndGet(), Math::max);
      if (question.equals("slow") || busy) {
        try {
          Thread.sleep(busy ? 300 : 8000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        if (busy) IN_FLIGHT.decrementAndGet();
      }
      byte[] body = (status == 500 ? "{\"error\": {\"message\": \"judge down\", \"type\": \"server_error\"}}"
          : JSON.writeValueAsString(Map.of("id", "c1", "object", "chat.completion", "created", 0, "model", "judge",
              "choices", List.of(Map.of("index", 0, "finish_reason", "stop", "message", Map.of("role", "assistant", "content", content))))))
          .getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      try {
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      } catch (java.io.IOException e) {
        // The judge gave up waiting: nothing to answer.
      } finally {
        exchange.close();
      }
    });
    server.start();
    return server;
  }

  @Test
  void rootsAreJudgedAgainstTheirEvidenceAndHarnessFailuresAreRecordedNotScored() throws Exception {
    Trees t = new Trees("run", 1, 1);
    String exact = t.root("q1", 0, "final", "djl", answer(PapersForTests.copied(PapersForTests.NOISY_A, EVIDENCE)));
    t.child(exact, 0, "final", "read " + PapersForTests.TITLE_A, answer(PapersForTests.copied(PapersForTests.NOISY_A, EVIDENCE)));
    String empty = t.root("q1", 1, "max_turns", "djl", null);
    String lost = t.root("q1", 2, "final", "djl", answer("anything"));
    t.child(lost, 0, "sandbox_lost", "c", null);
    String silent = t.root("q1", 3, "policy_error", "openai", null);
    String modelError = t.root("q1", 4, "policy_error", "djl", null);
    String unknown = t.root("q9", 0, "final", "djl", answer("x"));
    Dataset<Row> references = References.of(PapersForTests.queries(SPARK, List.<String[]>of(new String[] {"q1", "How is the reward computed?", EVIDENCE})),
        PapersForTests.groups(SPARK), PapersForTests.papers(SPARK));
    Dataset<Row> rewards = new Judge(JudgeSpec.resolve(settings(JudgeSettings.Kind.EMBEDDED, null), Map.of()))
        .transform(t.nodes(SPARK), references);
    assertEquals(Reward.SCHEMA, rewards.schema());
    Map<String, Row> r = byNode(rewards);
    // Six roots, no child.
    assertEquals(6, r.size());
    assertEquals(1.0, r.get(exact).<Double>getAs(Reward.REWARD), 1e-12);
    assertEquals(1.0, r.get(exact).<Double>getAs(Reward.SPAN_F1), 1e-12);
    assertEquals("embedded", r.get(exact).getAs(Reward.JUDGE));
    assertEquals(0.0, r.get(empty).<Double>getAs(Reward.REWARD));
    assertEquals(Reward.OK, r.get(empty).getAs(Reward.STATUS));
    assertEquals(0.0, r.get(modelError).<Double>getAs(Reward.REWARD));
    for (String infra : List.of(lost, silent)) {
      assertEquals(Reward.INFRA_FAILURE, r.get(infra).getAs(Reward.STATUS), infra);
      assertNull(r.get(infra).getAs(Reward.REWARD));
    }
    assertEquals("1 node(s) of the tree ended in an infrastructure failure {sandbox_lost=1}", r.get(lost).getAs(Reward.ERROR));
    assertTrue(r.get(silent).<String>getAs(Reward.ERROR).startsWith("the openai endpoint never answered"));
    assertEquals(Reward.JUDGE_ERROR, r.get(unknown).getAs(Reward.STATUS));
    assertEquals("query q9 has no evidence in the queries table", r.get(unknown).getAs(Reward.ERROR));
  }

  @Test
  void aRubricEndpointThatErrorsTimesOutOrAnswersGarbageNeverFailsTheStepAndTheRowsSaySo() throws Exception {
    HttpServer server = rubricServer();
    try {
      RubricSettings rubric = rubric(server, 3, 2);
      Trees t = new Trees("run", 1, 1);
      Map<String, String> rootOf = new HashMap<>();
      for (String q : List.of("fine", "errors", "slow", "garbage")) rootOf.put(q, t.root(q, 0, "final", "djl", answer(EVIDENCE)));
      Dataset<Row> references = References.of(PapersForTests.queries(SPARK, List.of(new String[] {"fine", "fine", EVIDENCE},
          new String[] {"errors", "errors", EVIDENCE}, new String[] {"slow", "slow", EVIDENCE}, new String[] {"garbage", "garbage", EVIDENCE})),
          PapersForTests.groups(SPARK), PapersForTests.papers(SPARK));
      Map<String, Row> r = byNode(new Judge(JudgeSpec.resolve(settings(JudgeSettings.Kind.RUBRIC, rubric), Map.of()))
          .transform(t.nodes(SPARK), references));
      assertEquals(4, r.size());
      Row fine = r.get(rootOf.get("fine"));
      // (6 + 10) / 20 = 0.8
      assertEquals(0.8, fine.<Double>getAs(Reward.REWARD), 1e-12);
      assertEquals("rubric", fine.getAs(Reward.JUDGE));
      assertEquals("covers it, with padding", fine.getAs(Reward.REASONING));
      Map<String, String> expected = Map.of("errors", "request failed", "slow", "timeout: no reply within 3.0 s",
          "garbage", "invalid reply: not JSON");
      expected.forEach((q, what) -> {
        Row row = r.get(rootOf.get(q));
        assertEquals(Reward.JUDGE_ERROR, row.getAs(Reward.STATUS), q);
        assertNull(row.getAs(Reward.REWARD), q);
        assertTrue(row.<String>getAs(Reward.ERROR).contains("after 2 attempt(s): " + what), row.<String>getAs(Reward.ERROR));
        // The span metrics need no judge: they are there even when the judge failed.
        assertEquals(1.0, row.<Double>getAs(Reward.SPAN_F1), 1e-9, q);
      });
    } finally {
      server.stop(0);
    }
  }

  @Test
  void endpointCallsInFlightNeverExceedTheJudgesConcurrencyAcrossTheTasksOfAnExecutor() throws Exception {
    HttpServer server = rubricServer();
    try {
      RubricSettings rubric = rubric(server, 10, 1);
      Trees t = new Trees("run", 1, 1);
      List<String[]> queries = new java.util.ArrayList<>();
      for (int q = 0; q < 8; q++) {
        queries.add(new String[] {"busy" + q, "busy" + q, EVIDENCE});
        for (int sample = 0; sample < 2; sample++) t.root("busy" + q, sample, "final", "djl", answer(EVIDENCE));
      }
      Dataset<Row> references = References.of(PapersForTests.queries(SPARK, queries), PapersForTests.groups(SPARK),
          PapersForTests.papers(SPARK));
      MOST_IN_FLIGHT.set(0);
      // judge.concurrency = 2 (settings()); the stage's queries fall into both of local[2]'s
      // tasks, each of which would start all its roots' calls at once without the shared bound.
      Dataset<Row> rewards = new Judge(JudgeSpec.resolve(settings(JudgeSettings.Kind.RUBRIC, rubric), Map.of()))
          .transform(t.nodes(SPARK), references);
      assertTrue(rewards.rdd().getNumPartitions() > 1, "the judge ran in one task: the bound across tasks is untested");
      Map<String, Row> r = byNode(rewards);
      assertEquals(16, r.size());
      for (Row row : r.values()) assertEquals(Reward.OK, row.getAs(Reward.STATUS), String.valueOf(row));
      assertEquals(2, MOST_IN_FLIGHT.get(), "calls in flight at once");
    } finally {
      server.stop(0);
    }
  }
}
