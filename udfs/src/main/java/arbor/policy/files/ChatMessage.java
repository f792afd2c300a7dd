package arbor.policy.files;

import java.util.Objects;

/**
 * One message of a conversation, as every policy sees it: the RLM runtime builds these, the DJL
 * policy's chat format renders them, the endpoint policies send them.
 */
public record ChatMessage(Role role, String content) {
  public enum Role {
    SYSTEM, USER, ASSISTANT;

    /** The role's name in chat templates and the OpenAI/Anthropic APIs. */
    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public ChatMessage {
    Objects.requireNonNull(role, "chat message role must not be null");
    if (content == null) {
      throw new IllegalArgumentException("chat message content must not be null (role "
          + role.key() + ")");
    }
  }

  public static ChatMessage system(String content) {
    return new ChatMessage(Role.SYSTEM, content);
  }

  public static ChatMessage user(String content) {
    return new ChatMessage(Role.USER, content);
  }

  public static ChatMessage assistant(String content) {
    return new ChatMessage(Role.ASSISTANT, content);
  }
}
