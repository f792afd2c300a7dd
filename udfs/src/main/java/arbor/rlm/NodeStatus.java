package arbor.rlm;

import java.util.Locale;

/** How an RLM node ended. */
public enum NodeStatus {
  /** Submitted a final answer. */
  FINAL,
  /** Used its turns without a final answer (reward 0). */
  MAX_TURNS,
  /** Its sandbox was lost (killed for a runaway cell, or died). */
  SANDBOX_ERROR,
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
