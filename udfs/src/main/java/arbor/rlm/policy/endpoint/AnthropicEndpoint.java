package arbor.rlm.policy.endpoint;

import arbor.conf.EndpointSettings;
import arbor.policy.files.ChatMessage;
import arbor.rlm.policy.Policy.PolicyException;
import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.errors.AnthropicException;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.models.messages.ContentBlock;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/** Anthropic's messages API through the official {@code anthropic-java} SDK. */
public final class AnthropicEndpoint implements ChatEndpoint {
  private final EndpointSettings settings;
  private final AnthropicClient client;

  private AnthropicEndpoint(EndpointSettings settings, AnthropicClient client) {
    this.settings = settings;
    this.client = client;
  }

  /** A client for {@code settings}, its key the one in {@code keys} under the variable the settings name. */
  public static AnthropicEndpoint create(EndpointSettings settings, Map<String, String> keys) {
    AnthropicClient client = AnthropicOkHttpClient.builder()
        .baseUrl(settings.baseUrl())
        .apiKey(ApiKey.from(keys, settings.apiKeyEnv(), "policy.anthropic.api_key_env"))
        .timeout(Duration.ofMillis(Math.round(settings.timeoutSeconds() * 1000)))
        .maxRetries(settings.maxRetries())
        .build();
    return new AnthropicEndpoint(settings, client);
  }

  @Override
  public String chat(List<ChatMessage> messages, int maxTokens) throws PolicyException {
    MessageCreateParams.Builder request = MessageCreateParams.builder()
        .model(settings.model())
        .maxTokens(Math.min(settings.maxTokens(), maxTokens))
        // This SDK version has no typed temperature field; the API still takes it.
        .putAdditionalBodyProperty("temperature", JsonValue.from(settings.temperature()));
    // The messages API takes system text apart from the turns.
    List<String> system = new ArrayList<>();
    for (ChatMessage m : messages) {
      switch (m.role()) {
        case SYSTEM -> system.add(m.content());
        case USER -> request.addUserMessage(m.content());
        case ASSISTANT -> request.addAssistantMessage(m.content());
      }
    }
    if (!system.isEmpty()) {
      request.system(String.join("\n\n", system));
    }
    Message reply;
    try {
      reply = client.messages().create(request.build());
    } catch (AnthropicServiceException e) {
      throw EndpointFailure.of("anthropic", settings, e, OptionalInt.of(e.statusCode()));
    } catch (AnthropicException e) {
      throw EndpointFailure.of("anthropic", settings, e, OptionalInt.empty());
    }
    StringBuilder text = new StringBuilder();
    for (ContentBlock block : reply.content()) {
      block.text().ifPresent(t -> text.append(t.text()));
    }
    return text.toString();
  }

  @Override
  public void close() {
    client.close();
  }
}
