package arbor.judge;

import java.util.Set;

/**
 * Which trees ended in an infrastructure failure: the harness failed, not the policy, so the root
 * gets no reward (never a zero one), stays out of its group's statistics and yields no samples.
 *
 * <ul>
 *   <li>any node of the tree has status {@code sandbox_lost} (its sandbox went down with another
 *       node's runaway cell): the tree's answer was cut short by the harness;
 *   <li>the root has status {@code policy_error} and its policy is an endpoint ({@code openai},
 *       {@code anthropic}): the endpoint never answered, after its retries. A {@code policy_error}
 *       of the embedded {@code djl} model, or of a child (its parent got an error string and
 *       carried on), is the policy's own outcome and is judged like any other.
 * </ul>
 */
public final class InfraFailure {
  private InfraFailure() {}

  public static final String SANDBOX_LOST = "sandbox_lost";
  public static final String POLICY_ERROR = "policy_error";
  public static final Set<String> ENDPOINT_POLICIES = Set.of("openai", "anthropic");

  /**
   * Why the tree is an infrastructure failure, or null when it is not.
   *
   * @param status the root's status
   * @param policy the root's policy
   * @param error the root's error text, or null
   * @param lostNodes nodes of the tree (the root included) with status {@code sandbox_lost}
   */
  public static String of(String status, String policy, String error, long lostNodes) {
    String detail = error == null || error.isBlank() ? "" : ": " + error;
    if (POLICY_ERROR.equals(status) && ENDPOINT_POLICIES.contains(policy)) {
      return "the " + policy + " endpoint never answered the root" + detail;
    }
    if (SANDBOX_LOST.equals(status)) return "the root's sandbox was lost" + detail;
    if (lostNodes > 0) return lostNodes + " node(s) of the tree lost their sandbox";
    return null;
  }
}
