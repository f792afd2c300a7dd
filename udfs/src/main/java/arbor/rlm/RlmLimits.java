package arbor.rlm;

import arbor.conf.ReplSettings;
import arbor.conf.RlmSettings;
import arbor.conf.OnMaxTurns;
import java.time.Duration;

/**
 * The caps of method.md section 2 that the runtime enforces outside the sandbox, per node and per
 * tree, and whether the nodes' REPLs bind {@code question}. Values in brackets are the defaults.
 *
 * @param maxTurns turns per node [6]
 * @param onMaxTurns what happens when they run out: end with {@code max_turns}, or ask once more
 * @param maxOutputChars characters of one observation [20,000]
 * @param maxDepth deepest node; at the limit {@code rlm_query} degrades to {@code llm_query} [1]
 * @param maxChildrenPerNode children one node may spawn in all [4]
 * @param maxNodesPerTree nodes of one tree, the root included [64]
 * @param maxTokensPerTree generated tokens of one tree [200,000]
 * @param treeWallTime wall time of one tree [10 min]
 * @param maxLlmCallsPerNode {@code llm_query} prompts one node may send in all, a batch counting
 *     one per prompt [64]
 * @param bindQuestion every node's REPL binds its prompt as the reserved name {@code question}
 *     [false: the published method has no such name]
 */
public record RlmLimits(int maxTurns, OnMaxTurns onMaxTurns, int maxOutputChars, int maxDepth,
    int maxChildrenPerNode, int maxNodesPerTree, long maxTokensPerTree, Duration treeWallTime,
    int maxLlmCallsPerNode, boolean bindQuestion) implements java.io.Serializable {

  public RlmLimits {
    if (maxTurns < 1) {
      throw new IllegalArgumentException("maxTurns must be at least 1, got " + maxTurns);
    }
    if (maxDepth < 0 || maxChildrenPerNode < 0 || maxNodesPerTree < 1 || maxTokensPerTree < 1) {
      throw new IllegalArgumentException("tree caps must be positive: depth " + maxDepth + ", children "
          + maxChildrenPerNode + ", nodes " + maxNodesPerTree + ", tokens " + maxTokensPerTree);
    }
    if (maxLlmCallsPerNode < 0) {
      throw new IllegalArgumentException("maxLlmCallsPerNode must not be negative, got " + maxLlmCallsPerNode);
    }
  }

  /** The caps with the default {@code llm_query} cap per node. */
  public RlmLimits(int maxTurns, OnMaxTurns onMaxTurns, int maxOutputChars, int maxDepth,
      int maxChildrenPerNode, int maxNodesPerTree, long maxTokensPerTree, Duration treeWallTime) {
    this(maxTurns, onMaxTurns, maxOutputChars, maxDepth, maxChildrenPerNode, maxNodesPerTree,
        maxTokensPerTree, treeWallTime, DEFAULT_LLM_CALLS, false);
  }

  public static final int DEFAULT_LLM_CALLS = 64;

  /** The caps of the configuration's {@code rlm} section, with the REPL's observation cap. */
  public static RlmLimits of(RlmSettings rlm, ReplSettings repl) {
    return new RlmLimits(rlm.maxTurns(), rlm.onMaxTurns(), repl.maxOutputChars(), rlm.maxDepth(), rlm.maxChildren(),
        rlm.maxNodes(), rlm.maxTokensPerTree(), rlm.treeWallTime(), rlm.maxLlmCalls(), rlm.bindQuestion());
  }

  public static RlmLimits defaults() {
    return new RlmLimits(6, OnMaxTurns.STOP, 20_000, 1, 4, 64, 200_000, Duration.ofMinutes(10));
  }

  public RlmLimits withMaxTurns(int turns) {
    return new RlmLimits(turns, onMaxTurns, maxOutputChars, maxDepth, maxChildrenPerNode,
        maxNodesPerTree, maxTokensPerTree, treeWallTime, maxLlmCallsPerNode, bindQuestion);
  }

  public RlmLimits withOnMaxTurns(OnMaxTurns on) {
    return new RlmLimits(maxTurns, on, maxOutputChars, maxDepth, maxChildrenPerNode,
        maxNodesPerTree, maxTokensPerTree, treeWallTime, maxLlmCallsPerNode, bindQuestion);
  }

  public RlmLimits withMaxLlmCallsPerNode(int calls) {
    return new RlmLimits(maxTurns, onMaxTurns, maxOutputChars, maxDepth, maxChildrenPerNode,
        maxNodesPerTree, maxTokensPerTree, treeWallTime, calls, bindQuestion);
  }

  public RlmLimits withBindQuestion(boolean bind) {
    return new RlmLimits(maxTurns, onMaxTurns, maxOutputChars, maxDepth, maxChildrenPerNode,
        maxNodesPerTree, maxTokensPerTree, treeWallTime, maxLlmCallsPerNode, bind);
  }
}
