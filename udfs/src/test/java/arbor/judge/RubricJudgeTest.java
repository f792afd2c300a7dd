package arbor.judge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.JudgeSettings.RubricSettings;
import arbor.conf.JudgeSettings.RubricSettings.ResponseFormat;
import arbor.rlm.policy.endpoint.LoopbackApi;
import arbor.synthesis.Evidence;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rubric judge through the real openai-java client against a loopback chat-completions server. */
class RubricJudgeTest {
  static final JudgeCase CASE = new JudgeCase("What is the reward?",
      List.of(new Evidence("A", "The reward is (P + R) / 20.")), Map.of("A", "The reward is (P + R) / 20."),
      List.of("The reward is (P + R) / 20.", "Padding."));
  static final String RUBRIC = JudgeSpec.readRubric("../conf/judge/rubric.md");

  static String completion(String content) {
    return """
        {"id": "chatcmpl-1", "object": "chat.completion", "created": 1764460800, "model": "judge",
         "choices": [{"index": 0, "finish_reason": "stop", "logprobs": null,
         "message": {"role": "assistant", "content": %s, "refusal": null}}]}""".formatted(TextNode.valueOf(content).toString());
  }

  static RubricSettings settings(LoopbackApi api, double timeout, int attempts, ResponseFormat format) {
    return new RubricSettings(api.root() + "/v1", "judge", "", 0.0, 256, timeout, attempts, 50, format, "unused", 12000);
  }

  static Verdict judge(LoopbackApi api, RubricSettings s) {
    try (RubricJudge j = new RubricJudge(s, RUBRIC, "none")) {
      return j.judge(CASE, AlignedCase.of(CASE));
    }
  }

  @Test
  void aValidReplyGivesPrecisionRecallAndRewardPPlusROver20() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/chat/completions",
        n -> LoopbackApi.Reply.ok(completion("{\"precision\": 7, \"recall\": 9, \"reasoning\": \"all facts, some padding\"}")))) {
      Verdict v = judge(api, settings(api, 5, 3, ResponseFormat.JSON_SCHEMA));
      // (7 + 9) / 20 = 0.8
      assertEquals(0.8, v.reward(), 1e-12);
      assertEquals(7, v.precision());
      assertEquals(9, v.recall());
      assertEquals("all facts, some padding", v.reasoning());
      assertNull(v.error());

      JsonNode body = api.requests.getFirst().body();
      assertEquals(0.0, body.path("temperature").asDouble());
      assertEquals("json_schema", body.path("response_format").path("type").asText());
      JsonNode schema = body.path("response_format").path("json_schema");
      assertTrue(schema.path("strict").asBoolean());
      assertEquals(List.of("precision", "recall", "reasoning"),
          List.of(schema.path("schema").path("required").get(0).asText(), schema.path("schema").path("required").get(1).asText(),
              schema.path("schema").path("required").get(2).asText()));
      assertEquals(RUBRIC, body.path("messages").get(0).path("content").asText());
      String user = body.path("messages").get(1).path("content").asText();
      assertTrue(user.contains("QUESTION:\nWhat is the reward?"), user);
      assertTrue(user.contains("REFERENCE:\n[1] The reward is (P + R) / 20."), user);
      assertTrue(user.contains("PREDICTED:\n[1] The reward is (P + R) / 20.\n[2] Padding."), user);
    }
  }

  @Test
  void aServerThatAlwaysErrorsIsRetriedWithBackoffThenRecordedNotThrown() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/chat/completions", n -> new LoopbackApi.Reply(500, Map.of(),
        "{\"error\": {\"message\": \"judge overloaded\", \"type\": \"server_error\"}}", 0))) {
      long t0 = System.nanoTime();
      Verdict v = judge(api, settings(api, 5, 3, ResponseFormat.JSON_OBJECT));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertFalse(v.ok());
      assertNull(v.reward());
      assertEquals(3, api.requests.size());
      // Waits 50 ms, then 100 ms.
      assertTrue(ms >= 150, ms + " ms");
      assertTrue(v.error().contains("after 3 attempt(s)"), v.error());
      assertTrue(v.error().contains("judge overloaded") || v.error().contains("500"), v.error());
      assertEquals("json_object", api.requests.getFirst().body().path("response_format").path("type").asText());
    }
  }

  @Test
  void aServerThatDoesNotAnswerInTimeIsATimeoutError() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/chat/completions",
        n -> new LoopbackApi.Reply(200, Map.of(), completion("{\"precision\": 5, \"recall\": 5}"), 3_000))) {
      long t0 = System.nanoTime();
      Verdict v = judge(api, settings(api, 0.3, 2, ResponseFormat.TEXT));
      assertTrue((System.nanoTime() - t0) / 1e9 < 2.5, "the judge waited for the slow server");
      assertTrue(v.error().contains("timeout: no reply within 0.3 s"), v.error());
      assertTrue(api.requests.getFirst().body().path("response_format").isMissingNode());
    }
  }

  @Test
  void malformedRepliesAreRetriedAndAValidOneIsTaken() throws Exception {
    String[] replies = {"this is not json", "{\"precision\": 11, \"recall\": 3}", "{\"precision\": 4, \"recall\": 2, \"reasoning\": \"thin\"}"};
    try (LoopbackApi api = new LoopbackApi("/v1/chat/completions", n -> LoopbackApi.Reply.ok(completion(replies[Math.min(n, 2)])))) {
      Verdict v = judge(api, settings(api, 5, 3, ResponseFormat.JSON_SCHEMA));
      assertEquals(3, api.requests.size());
      assertEquals(0.3, v.reward(), 1e-12);
    }
  }

  @Test
  void repliesThatStayMalformedEndAsAnInvalidReplyError() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/chat/completions", n -> LoopbackApi.Reply.ok(completion("{\"precision\": \"high\"}")))) {
      Verdict v = judge(api, settings(api, 5, 2, ResponseFormat.JSON_SCHEMA));
      assertTrue(v.error().contains("invalid reply: no numeric 'precision'"), v.error());
    }
  }

  @Test
  void aFencedJsonReplyIsAccepted() throws Exception {
    Verdict v = RubricJudge.parse("```json\n{\"precision\": 10, \"recall\": 10, \"reasoning\": \"exact\"}\n```");
    assertEquals(1.0, v.reward());
  }

  @Test
  void predictedTextBeyondTheCapIsCutAndTheRequestSaysSo() {
    JudgeCase big = new JudgeCase("q", CASE.evidence(), CASE.papers(), List.of("x".repeat(30), "y".repeat(30)));
    String text = RubricJudge.render(big, 40);
    assertTrue(text.contains("[1] " + "x".repeat(30) + "\n[2] " + "y".repeat(10) + "\n"), text);
    assertTrue(text.contains("(20 more predicted characters not shown"), text);
  }
}
