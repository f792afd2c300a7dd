package arbor.rlm.policy.endpoint;

import arbor.policy.files.ChatMessage;
import arbor.rlm.policy.Generation;
import arbor.rlm.policy.NodePath;
import arbor.rlm.policy.Policy;
import arbor.rlm.policy.PolicyCall;
import java.util.List;

/**
 * A policy served by an endpoint (the {@code openai} and {@code anthropic} policies): teachers and
 * baselines. Turns carry text only: an endpoint's tokens are not Arbor's, so its turns are never
 * training samples of the DJL policy. {@code llm_query} is a one-message conversation.
 */
public final class EndpointPolicy implements Policy, AutoCloseable {
  private final ChatEndpoint endpoint;
  private final Generation.Sampling sampling;

  public EndpointPolicy(ChatEndpoint endpoint) {
    this(endpoint, Generation.Sampling.NONE);
  }

  /** @param sampling what the endpoint is asked to sample with, recorded on every turn */
  public EndpointPolicy(ChatEndpoint endpoint, Generation.Sampling sampling) {
    this.endpoint = endpoint;
    this.sampling = sampling;
  }

  @Override
  public Generation generate(PolicyCall call) throws PolicyException {
    return Generation.ofText(endpoint.chat(call.messages(), call.maxNewTokens()), sampling);
  }

  @Override
  public Generation complete(NodePath node, String prompt, long seed, int maxNewTokens) throws PolicyException {
    return Generation.ofText(endpoint.chat(List.of(ChatMessage.user(prompt)), maxNewTokens), sampling);
  }

  @Override
  public String complete(NodePath node, String prompt) throws PolicyException {
    return endpoint.chat(List.of(ChatMessage.user(prompt)));
  }

  @Override
  public void close() {
    endpoint.close();
  }
}
