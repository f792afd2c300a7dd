package arbor.jobs.conf;

import arbor.conf.DjlPolicySettings;
import arbor.conf.PolicySettings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The policies' block of the configuration tree: defaults, overrides and ranges. */
class PolicyConfigTest {

  @Test
  void defaultsBindEveryPolicySetting() {
    PolicySettings p = ConfigLoader.load(List.of(), List.of()).policy();
    assertEquals("", p.djl().modelDir());
    assertEquals(new DjlPolicySettings.Engine(64, 512, 4096, 16, true), p.djl().engine());
    assertEquals(new DjlPolicySettings.Sampling(1.0, 1.0, 0, 1024), p.djl().sampling());
    assertEquals("OPENAI_API_KEY", p.openai().apiKeyEnv());
    assertEquals("https://api.anthropic.com", p.anthropic().baseUrl());
    assertEquals(3, p.anthropic().maxRetries());
  }

  @Test
  void anEndpointCanBePointedAtAnOpenAiCompatibleServer() {
    PolicySettings p = ConfigLoader.load(List.of(), List.of(
        "policy.openai.base_url=http://127.0.0.1:8000/v1", "policy.openai.model=qwen3-4b",
        "policy.openai.api_key_env=VLLM_KEY")).policy();
    assertEquals("http://127.0.0.1:8000/v1", p.openai().baseUrl());
    assertEquals("qwen3-4b", p.openai().model());
    assertEquals("VLLM_KEY", p.openai().apiKeyEnv());
  }

  @Test
  void outOfRangeSettingsNameTheirKey() {
    ConfigError topP = assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(),
        List.of("policy.djl.sampling.top_p=0")));
    assertTrue(topP.getMessage().contains("policy.djl.sampling.top_p")
        && topP.getMessage().contains("(0, 1]"), topP.getMessage());
    ConfigError timeout = assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(),
        List.of("policy.anthropic.timeout_seconds=0")));
    assertTrue(timeout.getMessage().contains("policy.anthropic.timeout_seconds"),
        timeout.getMessage());
  }
}
