package arbor.rlm.policy;

import java.util.List;

/**
 * One request to a policy: which node and turn asks, and the exact conversation it sends.
 *
 * @param prompt the node's own prompt, also quoted in the conversation; given separately for
 *     policies written in Java (the scripted expert) that work from it
 * @param multiPaper whether the node's context is a dict of papers (else one paper's text)
 */
public record PolicyCall(NodePath node, int turn, List<ChatMessage> messages, String prompt, boolean multiPaper) {
  public PolicyCall {
    messages = List.copyOf(messages);
  }
}
