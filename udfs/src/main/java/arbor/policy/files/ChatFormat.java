package arbor.policy.files;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a conversation into the exact prompt text a model family was trained on. Qwen3's format
 * is a Java class tested against its HF {@code chat_template}, because Jinjava 2.8.2 cannot
 * render that template ({@code [::-1]} slicing); other families' simple templates are rendered
 * by Jinjava ({@link JinjaChatFormat}).
 */
public interface ChatFormat {

  /**
   * Renders the conversation; with {@code generationPrompt} it ends with the text that opens the
   * assistant's next turn.
   */
  String render(List<ChatMessage> messages, boolean generationPrompt);

  /** Tokens that end an assistant turn (generation stops on any of them). */
  List<String> stopTokens();

  /**
   * The format of a checkpoint: Qwen3's Java format for {@code qwen3}; for other families their
   * own {@code chat_template} (from {@code tokenizer_config.json}, may be null) rendered by
   * {@link JinjaChatFormat}, with the config's {@code eos_token} as the turn's stop token.
   *
   * @throws IllegalArgumentException naming the family when neither can render its chats
   */
  static ChatFormat forModel(String modelType, JsonNode tokenizerConfig) {
    if (modelType.equals("qwen3") || tokenizerConfig == null) {
      return forFamily(modelType);
    }
    JsonNode t = tokenizerConfig.get("chat_template");
    if (t != null && t.isArray()) {
      // Several named templates: the plain chat one is called "default".
      JsonNode named = null;
      for (JsonNode n : t) {
        if (n.path("name").asText().equals("default")) {
          named = n.get("template");
        }
      }
      t = named;
    }
    if (t == null || !t.isTextual()) {
      return forFamily(modelType);
    }
    Map<String, Object> specials = new HashMap<>();
    List<String> stops = new ArrayList<>();
    for (String name : List.of("bos_token", "eos_token", "pad_token", "unk_token")) {
      JsonNode v = tokenizerConfig.get(name);
      // Either a string or an AddedToken object {"content": ...}.
      String text = v == null ? null : v.isTextual() ? v.asText()
          : v.has("content") ? v.get("content").asText() : null;
      if (text != null) {
        specials.put(name, text);
        if (name.equals("eos_token")) {
          stops.add(text);
        }
      }
    }
    return JinjaChatFormat.compile(modelType, t.asText(), specials, stops);
  }

  /** The format of a family, by HF {@code model_type}. */
  static ChatFormat forFamily(String modelType) {
    return switch (modelType) {
      case "qwen3" -> new Qwen3ChatFormat(false);
      default -> throw new IllegalArgumentException("No chat format for model_type '" + modelType
          + "': Arbor renders Qwen3's template only. Add a ChatFormat for this family (tested"
          + " against its tokenizer_config.json chat_template) in arbor.policy.model, or give"
          + " the checkpoint a chat_template that Jinjava can render.");
    };
  }
}
