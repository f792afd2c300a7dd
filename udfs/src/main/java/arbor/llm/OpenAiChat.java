package arbor.llm;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.time.Duration;

/**
 * The one way Arbor reaches an OpenAI-compatible chat-completions server (OpenAI, vLLM,
 * OpenRouter, a local judge): the official {@code openai-java} SDK with a per-request timeout and
 * the SDK's own retries ({@code sdkRetries}; 0 where the caller retries itself, because it also
 * retries replies it cannot use). Building one opens no connection; the first request does.
 * Thread-safe; close it to release the SDK's connection pool and threads.
 */
public final class OpenAiChat implements AutoCloseable {
  private final OpenAIClient client;

  /** {@code apiKey}: any non-empty text for servers without keys. */
  public OpenAiChat(String baseUrl, String apiKey, Duration timeout, int sdkRetries) {
    this.client = OpenAIOkHttpClient.builder().baseUrl(baseUrl).apiKey(apiKey).timeout(timeout).maxRetries(sdkRetries).build();
  }

  /** {@code seconds} as the SDK's timeout, to the millisecond. */
  public static Duration seconds(double seconds) {
    return Duration.ofMillis(Math.round(seconds * 1000));
  }

  /** The whole completion; what the SDK throws (after its retries) is thrown as it is. */
  public ChatCompletion complete(ChatCompletionCreateParams request) {
    return client.chat().completions().create(request);
  }

  /** The first choice's text ("" when it has none); a completion without choices is an error. */
  public String reply(ChatCompletionCreateParams request) {
    ChatCompletion completion = complete(request);
    if (completion.choices().isEmpty()) throw new IllegalStateException("the reply has no choices");
    return completion.choices().getFirst().message().content().orElse("");
  }

  @Override
  public void close() {
    client.close();
  }
}
