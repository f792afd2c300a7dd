package arbor.rlm.policy.endpoint;

import arbor.conf.EndpointSettings;
import arbor.llm.OpenAiChat;
import arbor.policy.files.ChatMessage;
import arbor.rlm.policy.Policy.PolicyException;
import com.openai.errors.OpenAIException;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, OpenRouter) through the official
 * {@code openai-java} SDK; {@code policy.openai.base_url} chooses the server.
 */
public final class OpenAiEndpoint implements ChatEndpoint {
  private final EndpointSettings settings;
  private final OpenAiChat chat;

  private OpenAiEndpoint(EndpointSettings settings, OpenAiChat chat) {
    this.settings = settings;
    this.chat = chat;
  }

  /** A client for {@code settings}, its key the one in {@code keys} under the variable the settings name. */
  public static OpenAiEndpoint create(EndpointSettings settings, Map<String, String> keys) {
    String key = ApiKey.from(keys, settings.apiKeyEnv(), "policy.openai.api_key_env");
    return new OpenAiEndpoint(settings, new OpenAiChat(settings.baseUrl(), key, OpenAiChat.seconds(settings.timeoutSeconds()),
        settings.maxRetries()));
  }

  @Override
  public String chat(List<ChatMessage> messages, int maxTokens) throws PolicyException {
    ChatCompletionCreateParams.Builder request = ChatCompletionCreateParams.builder()
        .model(settings.model())
        .temperature(settings.temperature())
        .maxCompletionTokens(Math.min(settings.maxTokens(), maxTokens));
    for (ChatMessage m : messages) {
      switch (m.role()) {
        case SYSTEM -> request.addSystemMessage(m.content());
        case USER -> request.addUserMessage(m.content());
        case ASSISTANT -> request.addAssistantMessage(m.content());
      }
    }
    ChatCompletion reply;
    try {
      reply = chat.complete(request.build());
    } catch (OpenAIServiceException e) {
      throw EndpointFailure.of("openai", settings, e, OptionalInt.of(e.statusCode()));
    } catch (OpenAIException e) {
      throw EndpointFailure.of("openai", settings, e, OptionalInt.empty());
    }
    if (reply.choices().isEmpty()) {
      throw new PolicyException("openai policy (" + settings.model() + " at "
          + settings.baseUrl() + ") returned no choices");
    }
    var message = reply.choices().getFirst().message();
    return message.content().or(message::refusal).orElse("");
  }

  @Override
  public void close() {
    chat.close();
  }
}
