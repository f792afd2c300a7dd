package arbor.rlm;

/**
 * What a node loop asks its tree between steps: whether it must stop (and with which status), and
 * where it charges the tokens it generated. The tree runner implements the caps behind it.
 */
public interface NodeGuard {
  /** Null while the node may go on; otherwise the status to end with. */
  NodeStatus stopReason();

  void chargeTokens(int tokens);

  /**
   * Null unless the node was stopped from outside (its parent, a cancel) or the tree's wall time
   * ran out. A final answer its cell returns after that does not count: the cell may have finished
   * only because the stop cancelled the children it waited on. A spent token budget is not such a
   * stop, since the turn that spent it may rightly carry the answer.
   */
  default NodeStatus stoppedBy() {
    return null;
  }

  /** Tokens the next generation may produce at most: what is left of the tree's budget. */
  default int tokensLeft() {
    return Integer.MAX_VALUE;
  }

  /** No caps beyond the node's own turn limit: a lone node, in tests and the REPL job. */
  NodeGuard NONE = new NodeGuard() {
    @Override
    public NodeStatus stopReason() {
      return null;
    }

    @Override
    public void chargeTokens(int tokens) {}
  };
}
