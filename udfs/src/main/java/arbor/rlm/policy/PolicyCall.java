package arbor.rlm.policy;

import arbor.policy.files.ChatMessage;
import java.util.List;

/**
 * One request to a policy: which node and turn asks, and the exact conversation it sends.
 *
 * @param prompt the node's own prompt, also quoted in the conversation; given separately for
 *     policies written in Java (the scripted expert) that work from it
 * @param multiPaper whether the node's context is a dict of papers (else one paper's text)
 * @param seed this turn's sampling seed ({@code arbor.rlm.TreeSeed}): a sampling policy draws
 *     with it, the scripted expert draws its choices from it, so one seed gives one response
 * @param maxNewTokens the most tokens this turn may generate: what is left of its tree's token
 *     budget; a policy generates at most this many, whatever its own setting
 */
public record PolicyCall(NodePath node, int turn, List<ChatMessage> messages, String prompt, boolean multiPaper,
    long seed, int maxNewTokens) {
  public PolicyCall {
    messages = List.copyOf(messages);
    if (maxNewTokens < 1) {
      throw new IllegalArgumentException("maxNewTokens must be at least 1, got " + maxNewTokens);
    }
  }

  /** A call bounded only by the policy's own settings. */
  public PolicyCall(NodePath node, int turn, List<ChatMessage> messages, String prompt, boolean multiPaper,
      long seed) {
    this(node, turn, messages, prompt, multiPaper, seed, Integer.MAX_VALUE);
  }

  /** A call with seed 0 (tests and single requests). */
  public PolicyCall(NodePath node, int turn, List<ChatMessage> messages, String prompt, boolean multiPaper) {
    this(node, turn, messages, prompt, multiPaper, 0L);
  }
}
