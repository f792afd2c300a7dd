package arbor.policy.files;

import java.util.List;

/**
 * Qwen3's chat template (its {@code tokenizer_config.json} {@code chat_template}, no tools), as
 * Java:
 *
 * <ul>
 *   <li>a first system message becomes {@code <|im_start|>system\n...<|im_end|>\n};
 *   <li>user (and later system) messages are {@code <|im_start|>role\ncontent<|im_end|>\n};
 *   <li>an assistant message drops any {@code <think>...</think>} reasoning from its content,
 *       unless it comes after the last user message, where the reasoning is kept in a normalised
 *       {@code <think>\n...\n</think>\n\n} block (always for the last message, otherwise only if
 *       it had reasoning);
 *   <li>the generation prompt is {@code <|im_start|>assistant\n}, followed by an empty think
 *       block {@code <think>\n\n</think>\n\n} when thinking is disabled.
 * </ul>
 *
 * <p>The template treats a user message wrapped in {@code <tool_response>} tags as a tool result
 * when locating the last user query; that rule is kept.
 */
public record Qwen3ChatFormat(boolean enableThinking) implements ChatFormat {

  @Override
  public String render(List<ChatMessage> messages, boolean generationPrompt) {
    StringBuilder out = new StringBuilder();
    if (!messages.isEmpty() && messages.get(0).role() == ChatMessage.Role.SYSTEM) {
      out.append("<|im_start|>system\n").append(messages.get(0).content()).append("<|im_end|>\n");
    }
    int lastQuery = lastQueryIndex(messages);
    for (int i = 0; i < messages.size(); i++) {
      ChatMessage m = messages.get(i);
      switch (m.role()) {
        case SYSTEM -> {
          if (i > 0) {
            out.append("<|im_start|>system\n").append(m.content()).append("<|im_end|>\n");
          }
        }
        case USER ->
            out.append("<|im_start|>user\n").append(m.content()).append("<|im_end|>\n");
        case ASSISTANT -> appendAssistant(out, m.content(), i > lastQuery, i == messages.size() - 1);
      }
    }
    if (generationPrompt) {
      out.append("<|im_start|>assistant\n");
      if (!enableThinking) {
        out.append("<think>\n\n</think>\n\n");
      }
    }
    return out.toString();
  }

  private static void appendAssistant(StringBuilder out, String text, boolean afterLastQuery,
      boolean last) {
    String content = text;
    String reasoning = "";
    int end = text.indexOf("</think>");
    if (end >= 0) {
      int lastEnd = text.lastIndexOf("</think>");
      content = stripLeading(text.substring(lastEnd + "</think>".length()), '\n');
      String before = stripTrailing(text.substring(0, end), '\n');
      int open = before.lastIndexOf("<think>");
      reasoning = stripLeading(open >= 0 ? before.substring(open + "<think>".length()) : before,
          '\n');
    }
    out.append("<|im_start|>assistant\n");
    if (afterLastQuery && (last || !reasoning.isEmpty())) {
      out.append("<think>\n").append(stripTrailing(stripLeading(reasoning, '\n'), '\n'))
          .append("\n</think>\n\n").append(stripLeading(content, '\n'));
    } else {
      out.append(content);
    }
    out.append("<|im_end|>\n");
  }

  /** Index of the last user message that is not a tool response; messages.size()-1 if none. */
  private static int lastQueryIndex(List<ChatMessage> messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      ChatMessage m = messages.get(i);
      boolean toolResponse = m.content().startsWith("<tool_response>")
          && m.content().endsWith("</tool_response>");
      if (m.role() == ChatMessage.Role.USER && !toolResponse) {
        return i;
      }
    }
    return messages.size() - 1;
  }

  private static String stripLeading(String s, char c) {
    int i = 0;
    while (i < s.length() && s.charAt(i) == c) {
      i++;
    }
    return s.substring(i);
  }

  private static String stripTrailing(String s, char c) {
    int i = s.length();
    while (i > 0 && s.charAt(i - 1) == c) {
      i--;
    }
    return s.substring(0, i);
  }

  @Override
  public List<String> stopTokens() {
    return List.of("<|im_end|>", "<|endoftext|>");
  }
}
