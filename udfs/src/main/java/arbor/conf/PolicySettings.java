package arbor.conf;

import java.io.Serializable;

/**
 * The policies' settings, one block per backend that needs any ({@code scripted} and
 * {@code replay} need none).
 *
 * @param djl the trainable model run in this JVM
 * @param openai any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, OpenRouter)
 * @param anthropic Anthropic's messages API
 * @param replay recorded responses
 * @param scripted the scripted expert's program
 */
public record PolicySettings(DjlPolicySettings djl, EndpointSettings openai,
    EndpointSettings anthropic, ReplaySettings replay, ScriptedSettings scripted) implements Serializable {

  /** The same settings with the djl model folder {@code dir}. */
  public PolicySettings withModelDir(String dir) {
    return new PolicySettings(new DjlPolicySettings(dir, djl.torchThreads(), djl.seed(), djl.engine(),
        djl.sampling(), djl.cache()), openai, anthropic, replay, scripted);
  }

  public PolicySettings withReplayFile(String file) {
    return new PolicySettings(djl, openai, anthropic, new ReplaySettings(file), scripted);
  }
}
