package arbor.rlm.policy.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.EndpointSettings;
import arbor.policy.files.ChatMessage;
import arbor.rlm.policy.Policy.PolicyException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The anthropic policy's endpoint: the real anthropic-java client against a loopback server. */
class AnthropicEndpointTest {
  static final Map<String, String> ENV = Map.of("TEST_ANTHROPIC_KEY", "sk-ant-test");
  static final List<ChatMessage> CONVERSATION = List.of(ChatMessage.system("You are an RLM."),
      ChatMessage.user("Context: 2 papers"), ChatMessage.assistant("```repl\nprint(1)\n```"),
      ChatMessage.user("1"));

  static String message(String... texts) {
    StringBuilder blocks = new StringBuilder();
    for (String t : texts) {
      blocks.append(blocks.isEmpty() ? "" : ", ")
          .append("{\"type\": \"text\", \"text\": ").append(TextNode.valueOf(t)).append("}");
    }
    return """
        {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
         "content": [%s], "stop_reason": "end_turn", "stop_sequence": null,
         "usage": {"input_tokens": 20, "output_tokens": 7}}""".formatted(blocks);
  }

  static EndpointSettings settings(LoopbackApi api, double timeoutSeconds, int retries) {
    return new EndpointSettings(api.root(), "claude-test", "TEST_ANTHROPIC_KEY", 0.3, 512,
        timeoutSeconds, retries);
  }

  @Test
  void aReplyJoinsTheTextBlocksAndTheRequestCarriesSystemTurnsAndSampling() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/messages",
            n -> LoopbackApi.Reply.ok(message("```repl\n", "FINAL_VAR('evidence')\n```")));
        AnthropicEndpoint endpoint = AnthropicEndpoint.create(settings(api, 5, 0), ENV)) {
      assertEquals("```repl\nFINAL_VAR('evidence')\n```", endpoint.chat(CONVERSATION));

      LoopbackApi.Request r = api.requests.getFirst();
      assertEquals("/v1/messages", r.path());
      // This SDK version sends the key as a bearer token, with the API version it speaks.
      assertEquals(List.of("Bearer sk-ant-test"), r.headers().get("authorization"),
          r.headers().toString());
      assertTrue(r.headers().containsKey("anthropic-version"));
      JsonNode body = r.body();
      assertEquals("claude-test", body.path("model").asText());
      assertEquals(0.3, body.path("temperature").asDouble());
      assertEquals(512, body.path("max_tokens").asInt());
      assertEquals("You are an RLM.", body.path("system").asText());
      JsonNode messages = body.path("messages");
      assertEquals(3, messages.size(), "the system message travels apart from the turns");
      String[] roles = {"user", "assistant", "user"};
      for (int i = 0; i < 3; i++) {
        assertEquals(roles[i], messages.get(i).path("role").asText());
        assertEquals(CONVERSATION.get(i + 1).content(), messages.get(i).path("content").asText());
      }
    }
  }

  @Test
  void anOverloadedServerIsRetriedAndTheRetrySucceeds() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/messages", n -> n == 0
            ? new LoopbackApi.Reply(529, Map.of("retry-after-ms", "20"),
                "{\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\","
                    + " \"message\": \"Overloaded\"}}", 0)
            : LoopbackApi.Reply.ok(message("second try")));
        AnthropicEndpoint endpoint = AnthropicEndpoint.create(settings(api, 5, 2), ENV)) {
      assertEquals("second try", endpoint.chat(CONVERSATION));
      assertEquals(2, api.requests.size());
    }
  }

  @Test
  void aServerThatDoesNotAnswerInTimeIsAPolicyErrorThatSaysSo() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/messages",
            n -> new LoopbackApi.Reply(200, Map.of(), message("too late"), 5_000));
        AnthropicEndpoint endpoint = AnthropicEndpoint.create(settings(api, 0.4, 1), ENV)) {
      PolicyException e = assertThrows(PolicyException.class, () -> endpoint.chat(CONVERSATION));
      assertTrue(e.getMessage().contains("timed out")
          && e.getMessage().contains("policy.anthropic.timeout_seconds"), e.getMessage());
      assertEquals(2, api.requests.size());
    }
  }

  @Test
  void aBadRequestIsNotRetriedAndSaysWhatToCheck() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/messages", n -> new LoopbackApi.Reply(400,
            Map.of(), "{\"type\": \"error\", \"error\": {\"type\": \"invalid_request_error\","
                + " \"message\": \"max_tokens: too large\"}}", 0));
        AnthropicEndpoint endpoint = AnthropicEndpoint.create(settings(api, 5, 3), ENV)) {
      PolicyException e = assertThrows(PolicyException.class, () -> endpoint.chat(CONVERSATION));
      assertTrue(e.getMessage().contains("HTTP 400") && e.getMessage().contains("max_tokens"),
          e.getMessage());
      assertEquals(1, api.requests.size());
    }
  }
}
