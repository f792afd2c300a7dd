package arbor.rlm.policy.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.EndpointSettings;
import arbor.policy.files.ChatMessage;
import arbor.rlm.policy.Policy.PolicyException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The openai policy's endpoint: the real openai-java client against a loopback server. */
class OpenAiEndpointTest {
  static final Map<String, String> ENV = Map.of("TEST_OPENAI_KEY", "sk-test-123");
  static final List<ChatMessage> CONVERSATION = List.of(ChatMessage.system("You are an RLM."),
      ChatMessage.user("Context: 2 papers"), ChatMessage.assistant("```repl\nprint(1)\n```"),
      ChatMessage.user("1"));

  static String completion(String content) {
    return LoopbackApi.chatCompletion(content);
  }

  static EndpointSettings settings(LoopbackApi api, double timeoutSeconds, int retries) {
    return new EndpointSettings(api.root() + "/v1", "qwen3-4b", "TEST_OPENAI_KEY", 0.7, 256,
        timeoutSeconds, retries);
  }

  @Test
  void aReplyIsTheAssistantTextAndTheRequestCarriesModelMessagesAndSampling() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/chat/completions",
            n -> LoopbackApi.Reply.ok(completion("FINAL([\"a span\"])")));
        OpenAiEndpoint endpoint = OpenAiEndpoint.create(settings(api, 5, 0), ENV)) {
      assertEquals("FINAL([\"a span\"])", endpoint.chat(CONVERSATION));

      assertEquals(1, api.requests.size());
      LoopbackApi.Request r = api.requests.getFirst();
      assertEquals("POST", r.method());
      assertEquals("/v1/chat/completions", r.path());
      assertEquals(List.of("Bearer sk-test-123"), r.headers().get("authorization"));
      JsonNode body = r.body();
      assertEquals("qwen3-4b", body.path("model").asText());
      assertEquals(0.7, body.path("temperature").asDouble());
      assertEquals(256, body.path("max_completion_tokens").asInt());
      JsonNode messages = body.path("messages");
      assertEquals(4, messages.size());
      String[] roles = {"system", "user", "assistant", "user"};
      for (int i = 0; i < 4; i++) {
        assertEquals(roles[i], messages.get(i).path("role").asText());
        assertEquals(CONVERSATION.get(i).content(), messages.get(i).path("content").asText());
      }
    }
  }

  @Test
  void aServerErrorIsRetriedAndTheRetrySucceeds() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/chat/completions", n -> n == 0
            ? new LoopbackApi.Reply(503, Map.of("retry-after-ms", "20"),
                "{\"error\": {\"message\": \"overloaded\", \"type\": \"server_error\"}}", 0)
            : LoopbackApi.Reply.ok(completion("second try")));
        OpenAiEndpoint endpoint = OpenAiEndpoint.create(settings(api, 5, 2), ENV)) {
      assertEquals("second try", endpoint.chat(CONVERSATION));
      assertEquals(2, api.requests.size());
      assertEquals(api.requests.get(0).body(), api.requests.get(1).body());
    }
  }

  @Test
  void aServerThatDoesNotAnswerInTimeIsAPolicyErrorThatSaysSo() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/chat/completions",
            n -> new LoopbackApi.Reply(200, Map.of(), completion("too late"), 5_000));
        OpenAiEndpoint endpoint = OpenAiEndpoint.create(settings(api, 0.4, 1), ENV)) {
      long t0 = System.nanoTime();
      PolicyException e = assertThrows(PolicyException.class, () -> endpoint.chat(CONVERSATION));
      long millis = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(e.getMessage().contains("timed out") && e.getMessage().contains("2 attempts")
          && e.getMessage().contains("policy.openai.timeout_seconds"), e.getMessage());
      assertEquals(2, api.requests.size(), "one retry after the first timeout");
      assertTrue(millis < 4_000, "gave up after " + millis + " ms, not after the server's 5 s");
    }
  }

  @Test
  void aRejectedKeyIsNotRetriedAndNamesTheVariable() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/chat/completions",
            n -> new LoopbackApi.Reply(401, Map.of(),
                "{\"error\": {\"message\": \"bad key\", \"type\": \"invalid_request_error\"}}", 0));
        OpenAiEndpoint endpoint = OpenAiEndpoint.create(settings(api, 5, 3), ENV)) {
      PolicyException e = assertThrows(PolicyException.class, () -> endpoint.chat(CONVERSATION));
      assertTrue(e.getMessage().contains("HTTP 401") && e.getMessage().contains("TEST_OPENAI_KEY"),
          e.getMessage());
      assertEquals(1, api.requests.size());
    }
  }

  @Test
  void aMissingKeyVariableIsRefusedBeforeAnyRequest() {
    EndpointSettings s = new EndpointSettings("http://127.0.0.1:9/v1", "m", "NO_SUCH_KEY_VAR",
        0, 16, 1, 0);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> OpenAiEndpoint.create(s, Map.of()));
    assertTrue(e.getMessage().contains("NO_SUCH_KEY_VAR")
        && e.getMessage().contains("policy.openai.api_key_env"), e.getMessage());
  }
}
