package arbor.jobs.view;

import arbor.tables.RolloutNode;
import java.util.List;
import java.util.Map;

/**
 * Everything the viewer shows of one step of a run, gathered on the driver: the step's nodes
 * and turns, the judge's verdict and the advantage of each root, and the queries they answer.
 */
record StepTrees(String runId, long step, List<RolloutNode> nodes, List<Turn> turns, Map<String, Verdict> verdicts,
    Map<String, Double> advantages, Map<String, Query> queries) {

  /**
   * One turn: the last message the policy was given (the observation of the previous turn, or
   * the prompt), what it wrote, what ran and what came back.
   */
  record Turn(String nodeId, int turn, String lastRole, String lastMessage, String response, List<String> code,
      String observation, boolean replError, String finishReason, boolean truncated, int promptTokens,
      int responseTokens, long genMs, long execMs, double temperature, long seed) {}

  /** The judge's verdict on a root. */
  record Verdict(Double reward, Double precision, Double recall, String reasoning, Double spanF1, String judge,
      String status, String error) {}

  /** A query: its question, tier and ground-truth evidence. */
  record Query(String queryId, String question, String tier, String groupId, List<Evidence> evidence) {}

  record Evidence(String paperId, String text) {}

  List<RolloutNode> roots() {
    return nodes.stream().filter(n -> n.parentId() == null).toList();
  }
}
