package arbor.conf;

import java.io.Serializable;

/**
 * The {@code llm} generator: any OpenAI-compatible chat-completions endpoint.
 *
 * @param baseUrl the endpoint, e.g. {@code https://api.openai.com/v1} or a vLLM server
 * @param apiKeyEnv the name of the environment variable holding the key; empty for servers
 *     that need none
 * @param contextTokens the group's text is cut to about this many tokens (4 characters each)
 * @param timeoutSeconds per request
 * @param attempts tries per group (a failed request or an invalid reply costs one), then the
 *     group becomes a {@code synthesis_errors} row
 * @param backoffMillis the wait before the second try; doubles after each failure
 */
public record LlmSettings(
    String baseUrl,
    String model,
    String apiKeyEnv,
    double temperature,
    int contextTokens,
    int timeoutSeconds,
    int attempts,
    int backoffMillis) implements Serializable {}
