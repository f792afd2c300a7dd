package arbor.rlm.policy.endpoint;

import arbor.conf.EndpointSettings;
import arbor.policy.model.ChatMessage;
import arbor.rlm.policy.Policy.PolicyException;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.OpenAIException;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, OpenRouter) through the official
 * {@code openai-java} SDK; {@code policy.openai.base_url} chooses the server.
 */
public final class OpenAiEndpoint implements ChatEndpoint {
  private final EndpointSettings settings;
  private final OpenAIClient client;

  private OpenAiEndpoint(EndpointSettings settings, OpenAIClient client) {
    this.settings = settings;
    this.client = client;
  }

  /** A client for {@code settings}, its key read from {@code env} (pass {@code System.getenv()}). */
  public static OpenAiEndpoint create(EndpointSettings settings, Map<String, String> env) {
    OpenAIClient client = OpenAIOkHttpClient.builder()
        .baseUrl(settings.baseUrl())
        .apiKey(ApiKey.from(env, settings.apiKeyEnv(), "policy.openai.api_key_env"))
        .timeout(Duration.ofMillis(Math.round(settings.timeoutSeconds() * 1000)))
        .maxRetries(settings.maxRetries())
        .build();
    return new OpenAiEndpoint(settings, client);
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
      reply = client.chat().completions().create(request.build());
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
    client.close();
  }
}
