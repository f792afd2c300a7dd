package arbor.rlm.policy;

import java.util.List;

/** One request to a policy: which node and turn asks, and the exact conversation it sends. */
public record PolicyCall(NodePath node, int turn, List<ChatMessage> messages) {
  public PolicyCall {
    messages = List.copyOf(messages);
  }
}
