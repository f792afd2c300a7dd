package arbor.policy.model;

/** One turn of a conversation: role is system, user or assistant. */
public record ChatMessage(String role, String content) {

  public ChatMessage {
    if (!role.equals("system") && !role.equals("user") && !role.equals("assistant")) {
      throw new IllegalArgumentException("Chat role must be system, user or assistant, not '"
          + role + "'");
    }
    if (content == null) {
      throw new IllegalArgumentException("Chat message content must not be null (role " + role
          + ")");
    }
  }

  public static ChatMessage system(String text) {
    return new ChatMessage("system", text);
  }

  public static ChatMessage user(String text) {
    return new ChatMessage("user", text);
  }

  public static ChatMessage assistant(String text) {
    return new ChatMessage("assistant", text);
  }
}
