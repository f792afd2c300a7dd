package arbor.policy.model;

import arbor.rlm.policy.ChatMessage;
import java.util.List;

/**
 * Turns a conversation into the exact prompt text a model family was trained on. Each family's
 * format is a Java class tested against its HF {@code chat_template}, because the Java Jinja
 * engines available do not render Qwen3's template (Jinjava 2.8.2 rejects
 * {@code namespace(...)} keyword arguments and {@code [::-1]}, and mis-trims {@code {%-}).
 */
public interface ChatFormat {

  /**
   * Renders the conversation; with {@code generationPrompt} it ends with the text that opens the
   * assistant's next turn.
   */
  String render(List<ChatMessage> messages, boolean generationPrompt);

  /** Tokens that end an assistant turn (generation stops on any of them). */
  List<String> stopTokens();

  /** The format of a family, by HF {@code model_type}. */
  static ChatFormat forFamily(String modelType) {
    return switch (modelType) {
      case "qwen3" -> new Qwen3ChatFormat(false);
      default -> throw new IllegalArgumentException("No chat format for model_type '" + modelType
          + "': Arbor renders Qwen3's template only. Add a ChatFormat for this family (tested"
          + " against its tokenizer_config.json chat_template) in arbor.policy.model.");
    };
  }
}
