package arbor.conf;

import java.io.Serializable;

/**
 * How roots are judged (docs/training.md, "Rewards and advantages").
 *
 * @param kind {@code embedded} (deterministic, no network) or {@code rubric} (an LLM behind an
 *     OpenAI-compatible endpoint)
 * @param concurrency roots judged at once per executor JVM by an endpoint judge, over all its tasks
 * @param embedded the embedded judge's setting
 * @param rubric the rubric judge's endpoint and retries
 */
public record JudgeSettings(Kind kind, int concurrency, EmbeddedJudgeSettings embedded, RubricSettings rubric)
    implements Serializable {

  public enum Kind { EMBEDDED, RUBRIC }

  /**
   * @param cover the share of an evidence paragraph a prediction must cover for full credit
   */
  public record EmbeddedJudgeSettings(double cover) implements Serializable {}

  /**
   * @param baseUrl any OpenAI-compatible API root ({@code https://api.openai.com/v1}, a vLLM server)
   * @param apiKeyEnv the NAME of the environment variable holding the key; empty for servers without keys
   * @param temperature sent with every request (0: the same reply for the same case, where the server allows)
   * @param maxTokens most tokens of a reply
   * @param timeoutSeconds per attempt
   * @param attempts tries per root (a failed request or an unusable reply costs one); then the
   *     root's reward row records the error
   * @param backoffMillis the wait before the second try; it doubles after each further failure
   * @param responseFormat {@code json_schema} (strict schema), {@code json_object}, or {@code text}
   *     for servers that support neither (the rubric asks for JSON either way)
   * @param rubricFile the rubric, the judge's system prompt; when the file does not exist, the copy inside the jar
   * @param maxSpanChars predicted text sent to the judge is cut to this many characters (a
   *     runaway answer must not blow the judge's context); the cut is said in the request
   */
  public record RubricSettings(String baseUrl, String model, String apiKeyEnv, double temperature, int maxTokens,
      double timeoutSeconds, int attempts, int backoffMillis, ResponseFormat responseFormat, String rubricFile,
      int maxSpanChars) implements Serializable {

    public enum ResponseFormat { JSON_SCHEMA, JSON_OBJECT, TEXT }
  }
}
