package arbor.rlm.policy.endpoint;

import arbor.policy.files.ChatMessage;
import arbor.rlm.policy.Policy.PolicyException;
import java.util.List;

/**
 * A chat model behind an HTTP API, called through its official SDK: a conversation in, the
 * assistant's reply text out. Retries and backoff are the SDK's; what is still failing after them
 * is a {@link PolicyException} that says what went wrong and which setting to look at.
 * Thread-safe; close it to release the SDK's connection pool.
 */
public sealed interface ChatEndpoint extends AutoCloseable permits OpenAiEndpoint, AnthropicEndpoint {

  /** The reply, at most {@code maxTokens} tokens long (and at most the configured {@code max_tokens}). */
  String chat(List<ChatMessage> messages, int maxTokens) throws PolicyException;

  default String chat(List<ChatMessage> messages) throws PolicyException {
    return chat(messages, Integer.MAX_VALUE);
  }

  @Override
  void close();
}
