package arbor.rlm.policy.endpoint;

import arbor.conf.PromptStrategy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.EndpointSettings;
import arbor.rlm.NodeStatus;
import arbor.rlm.Prompts;
import arbor.rlm.RlmContext;
import arbor.rlm.RlmLimits;
import arbor.rlm.TreeRunner;
import arbor.rlm.sandbox.InProcessSandbox;
import arbor.rlm.sandbox.SandboxLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Endpoint policies writing real trees: what the endpoint answers is what the REPL runs. */
class EndpointPolicyTest {
  static final Prompts PROMPTS = Prompts.load(
      Path.of(System.getProperty("arbor.repo", ".."), "conf", "prompts"), PromptStrategy.REDUCED);
  static final RlmContext PAPER = new RlmContext.Single("Paper One\nAbstract\nAlpha result.");
  static InProcessSandbox sandbox;

  @BeforeAll
  static void start() {
    sandbox = new InProcessSandbox(new SandboxLimits(Duration.ofSeconds(20), Duration.ofSeconds(2), 20_000));
  }

  @AfterAll
  static void stop() {
    sandbox.close();
  }

  static EndpointSettings settings(String baseUrl, int retries) {
    return new EndpointSettings(baseUrl, "m", "KEY", 0, 128, 5, retries);
  }

  @Test
  void anOpenAiCompatibleServerWritesTheCodeTheTreeRuns() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/chat/completions", n -> LoopbackApi.Reply.ok(
            OpenAiEndpointTest.completion("```repl\nFINAL([context.split(chr(10))[2]])\n```")));
        EndpointPolicy policy = new EndpointPolicy(
            OpenAiEndpoint.create(settings(api.root() + "/v1", 0), Map.of("KEY", "k")))) {
      TreeRunner.TreeResult tree = new TreeRunner(sandbox, policy, PROMPTS, RlmLimits.defaults())
          .run("openai", "Which result?", PAPER);
      assertEquals(NodeStatus.FINAL, tree.root().status());
      assertEquals("[\"Alpha result.\"]", tree.root().finalAnswerJson());
      // The conversation the node built is the one the server received.
      assertEquals(tree.root().turns().getFirst().prompt().size(),
          api.requests.getFirst().body().path("messages").size());
      assertNull(tree.root().turns().getFirst().responseTokenIds(), "an endpoint has no ids");
    }
  }

  @Test
  void anEndpointThatKeepsFailingEndsTheNodeWithPolicyErrorNotACrash() throws Exception {
    try (LoopbackApi api = new LoopbackApi("/v1/messages", n -> new LoopbackApi.Reply(500,
            Map.of("retry-after-ms", "5"), "{\"type\": \"error\", \"error\": {\"type\":"
                + " \"api_error\", \"message\": \"boom\"}}", 0));
        EndpointPolicy policy = new EndpointPolicy(
            AnthropicEndpoint.create(settings(api.root(), 1), Map.of("KEY", "k")))) {
      TreeRunner.TreeResult tree = new TreeRunner(sandbox, policy, PROMPTS, RlmLimits.defaults())
          .run("anthropic", "Which result?", PAPER);
      assertEquals(NodeStatus.POLICY_ERROR, tree.root().status());
      assertTrue(tree.root().turns().isEmpty());
      assertEquals(2, api.requests.size(), "one retry, then the node gave up");
    }
  }
}
