package arbor.synthesis;

import static org.junit.jupiter.api.Assertions.*;

import arbor.conf.LlmSettings;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The llm generator through the real OpenAI SDK against a loopback server that speaks the chat
 * completions API and replies from a script: valid, invalid and too slow.
 */
class LlmGeneratorTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final GroupContext GROUP = Groups.group(
      Groups.paper("a", "Paper A", "First of A.", "Second of A."),
      Groups.paper("b", "Paper B", "First of B."));

  /** What the server does with the next request: reply with this content, or wait this long first. */
  private record Reply(String content, long delayMillis) {}

  private final ConcurrentLinkedDeque<Reply> script = new ConcurrentLinkedDeque<>();
  private final AtomicInteger requests = new AtomicInteger();
  private final ConcurrentLinkedDeque<String> bodies = new ConcurrentLinkedDeque<>();
  private HttpServer server;

  @BeforeEach
  void startServer() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/chat/completions", exchange -> {
      requests.incrementAndGet();
      bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      Reply reply = script.isEmpty() ? new Reply("{}", 0) : script.poll();
      try {
        Thread.sleep(reply.delayMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      byte[] body = JSON.writeValueAsBytes(Map.of("id", "chatcmpl-1", "object", "chat.completion", "created", 0, "model", "test-model",
          "choices", List.of(Map.of("index", 0, "finish_reason", "stop",
              "message", Map.of("role", "assistant", "content", reply.content())))));
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      try {
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      } catch (java.io.IOException e) {
        // The client gave up (timeout) and closed the connection: nothing to answer.
      }
    });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
  }

  @AfterEach
  void stopServer() {
    server.stop(0);
  }

  private LlmGenerator generator(int timeoutSeconds) {
    String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    return new LlmGenerator(new LlmSettings(url, "test-model", "", 0.7, 4000, timeoutSeconds, 3, 10), "none");
  }

  private static final String VALID = """
      {"queries": [{"question": "How do A and B begin?", "paragraphs": ["P1.1", "P2.1"]},
                   {"question": "What comes second in A?", "paragraphs": ["[P1.2]"]}]}""";

  @Test
  void aValidReplyBecomesQueriesWithTheVerbatimParagraphs() throws Exception {
    script.add(new Reply(VALID, 0));
    try (LlmGenerator g = generator(5)) {
      QueryGenerator.Outcome outcome = g.generate(GROUP, 3);
      assertNull(outcome.error());
      assertEquals(2, outcome.queries().size());
      Query first = outcome.queries().get(0);
      assertEquals("How do A and B begin?", first.question());
      assertEquals(List.of(new Evidence("a", "First of A."), new Evidence("b", "First of B.")), first.evidence());
      assertEquals(Tier.FOCUSED, first.tier());
      assertEquals(List.of(new Evidence("a", "Second of A.")), outcome.queries().get(1).evidence());
      for (Query q : outcome.queries()) assertTrue(EvidenceCheck.problem(q, GROUP).isEmpty());
    }
    assertEquals(1, requests.get());
    String request = bodies.peek();
    assertTrue(request.contains("\"model\":\"test-model\""), request);
    assertTrue(request.contains("[P2.1] First of B."), "the group's labelled paragraphs are sent: " + request);
  }

  @Test
  void theModelSeesEveryHeadingAndParagraphsFromAcrossALongPaperNotOnlyItsStart() throws Exception {
    // 40 paragraphs of about 400 characters under 4 headings: twice the paper's share of the budget.
    List<String> parts = new java.util.ArrayList<>();
    for (int s = 0; s < 4; s++) {
      parts.add("# Part " + (char) ('A' + s) + " heading");
      for (int j = 0; j < 10; j++) parts.add("Paragraph " + (s * 10 + j + 1) + " of the long paper. " + "Words go on. ".repeat(30));
    }
    GroupContext group = Groups.group(Groups.sectioned("long", "A Long Paper", parts.toArray(String[]::new)),
        Groups.paper("b", "Paper B", "First of B."));
    script.add(new Reply("{\"queries\": [{\"question\": \"What is in the last part?\", \"paragraphs\": [\"P1.33\"]}]}", 0));
    try (LlmGenerator g = generator(5)) {
      QueryGenerator.Outcome outcome = g.generate(group, 3);
      assertNull(outcome.error(), outcome.error());
      assertTrue(outcome.queries().get(0).evidence().get(0).text().startsWith("Paragraph 33 of the long paper."));
    }
    String request = bodies.peek();
    assertTrue(request.contains("Sections: Part A heading | Part B heading | Part C heading | Part D heading"), request);
    assertTrue(request.contains("### Part D heading"), "the last part's paragraphs are shown under their heading: " + request);
    assertTrue(request.contains("[P1.33] Paragraph 33"), request);
    assertFalse(request.contains("[P1.2] Paragraph 2"), "not every leading paragraph: the budget is spread over the paper");
  }

  @Test
  void spreadCoversTheWholeRangeEarly() {
    assertEquals(List.of(0, 4, 2, 6, 1, 3, 5, 7), LlmGenerator.spread(8));
    assertEquals(List.of(0, 1, 2), LlmGenerator.spread(3).stream().sorted().toList());
    assertEquals(List.of(), LlmGenerator.spread(0));
  }

  @Test
  void anInvalidReplyIsRetriedAndTheNextValidOneIsTaken() throws Exception {
    script.add(new Reply("Sure! Here are your questions: ...", 0));
    script.add(new Reply("{\"queries\": [{\"question\": \"Q?\", \"paragraphs\": [\"P9.9\"]}]}", 0));
    script.add(new Reply(VALID, 0));
    try (LlmGenerator g = generator(5)) {
      QueryGenerator.Outcome outcome = g.generate(GROUP, 3);
      assertNull(outcome.error());
      assertEquals(2, outcome.queries().size());
    }
    assertEquals(3, requests.get());
  }

  @Test
  void repliesThatStayInvalidBecomeAnErrorWithTheLastReasonAndNoQueries() throws Exception {
    script.add(new Reply(VALID.replace("P1.2", "P1.7"), 0)); // one good query, one bad: nothing is half taken
    script.add(new Reply("{\"queries\": []}", 0));
    script.add(new Reply("{\"queries\": [{\"paragraphs\": [\"P1.1\"]}]}", 0));
    try (LlmGenerator g = generator(5)) {
      QueryGenerator.Outcome outcome = g.generate(GROUP, 3);
      assertTrue(outcome.queries().isEmpty());
      assertEquals("after 3 attempt(s): invalid reply: query 1 has no 'question' text", outcome.error());
    }
    assertEquals(3, requests.get());
  }

  @Test
  void aServerThatDoesNotAnswerInTimeBecomesAnError() throws Exception {
    for (int i = 0; i < 3; i++) script.add(new Reply(VALID, 3_000));
    long start = System.nanoTime();
    try (LlmGenerator g = generator(1)) {
      QueryGenerator.Outcome outcome = g.generate(GROUP, 3);
      assertTrue(outcome.queries().isEmpty());
      assertEquals("after 3 attempt(s): timeout: no reply within 1 s (synthesis.llm.timeout_seconds)", outcome.error());
    }
    assertTrue((System.nanoTime() - start) / 1e9 < 8, "three one-second timeouts, not three slow replies");
  }

  @Test
  void aServerThatIsNotThereBecomesAnErrorThatSaysSo() throws Exception {
    server.stop(0);
    try (LlmGenerator g = generator(2)) {
      QueryGenerator.Outcome outcome = g.generate(GROUP, 3);
      assertTrue(outcome.queries().isEmpty());
      assertTrue(outcome.error().startsWith("after 3 attempt(s): request failed: "), outcome.error());
      assertTrue(outcome.error().contains("ConnectException"), outcome.error());
    }
  }
}
