package arbor.conf;

import java.io.Serializable;

/**
 * The policies' settings, one block per backend that needs any ({@code scripted} and
 * {@code replay} need none).
 *
 * @param djl the trainable model run in this JVM
 * @param openai any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, OpenRouter)
 * @param anthropic Anthropic's messages API
 */
public record PolicySettings(DjlPolicySettings djl, EndpointSettings openai,
    EndpointSettings anthropic) implements Serializable {}
