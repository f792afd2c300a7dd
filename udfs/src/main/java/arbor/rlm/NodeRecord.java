package arbor.rlm;

import java.util.List;

/**
 * One node of a rollout tree, as stored ({@code rollout_nodes} and, for its turns,
 * {@code rollout_turns}).
 *
 * @param childIndex the order of this node's prompt in its parent's call (-1 for a root)
 * @param finalAnswerJson the final answer as JSON, or null without one
 */
public record NodeRecord(
    String nodeId,
    String parentId,
    String rootId,
    int depth,
    int childIndex,
    int numChildren,
    String prompt,
    String finalAnswerJson,
    NodeStatus status,
    List<Turn> turns,
    long genTokens,
    long latencyMillis) {

  public NodeRecord {
    turns = List.copyOf(turns);
  }
}
