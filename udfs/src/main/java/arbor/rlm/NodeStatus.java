package arbor.rlm;

import java.util.Locale;

/** How an RLM node ended. */
public enum NodeStatus {
  /** Submitted a final answer. */
  FINAL,
  /** Used its turns without a final answer (reward 0). */
  MAX_TURNS,
  /** Its own cell ran away (ignored its interrupt) and cost it its REPL. */
  SANDBOX_ERROR,
  /**
   * Its REPL was lost to something it did not do (another node's runaway cell killed the shared
   * worker, a worker died or stopped answering) and could not be restored, or no REPL could be
   * opened for it at all (the pool closed, no free slot in time, no worker would start): an infrastructure
   * failure, never the policy's fault, so never a reward of zero.
   */
  SANDBOX_LOST,
  /** The policy failed to answer. */
  POLICY_ERROR,
  /** Stopped from outside: an ancestor stopped, or the tree was cancelled. */
  CANCELLED,
  /** A budget of its tree ran out: nodes, generated tokens or wall time. */
  BUDGET;

  /** The name stored in tables and JSON: {@code final}, {@code max_turns}, ... */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }
}
