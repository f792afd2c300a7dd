package arbor.conf;

import java.io.Serializable;

/**
 * A model behind an HTTP API, called through its official SDK.
 *
 * @param baseUrl the API root, e.g. {@code https://api.openai.com/v1} or a vLLM server's
 *     {@code http://host:8000/v1}
 * @param model the model name the endpoint knows
 * @param apiKeyEnv the name of the environment variable holding the API key (never the key)
 * @param temperature sampling temperature sent with every request
 * @param maxTokens most tokens per response
 * @param timeoutSeconds per attempt: connect, read and the whole request
 * @param maxRetries further attempts after a timeout, 408/409/429 or 5xx, with the SDK's
 *     exponential backoff (it honours the server's retry-after)
 */
public record EndpointSettings(String baseUrl, String model, String apiKeyEnv,
    double temperature, int maxTokens, double timeoutSeconds, int maxRetries)
    implements Serializable {}
