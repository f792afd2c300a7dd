package arbor.judge;

import arbor.conf.PolicyKind;
import arbor.rlm.runtime.TreeRows;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which trees ended in an infrastructure failure: the harness failed, not the policy, so the root
 * gets no reward (never a zero one), stays out of its group's statistics and yields no samples.
 * A tree is one when any of its nodes ended in a status that {@link TreeRows#isInfraFailure}
 * (the rollouts stage's rule, so both stages count the same trees) calls the harness's fault:
 *
 * <ul>
 *   <li>{@code sandbox_lost}: the node's sandbox went down with another node's runaway cell;
 *   <li>{@code infra_error}: the harness could not run the tree at all;
 *   <li>{@code policy_error} from an endpoint policy ({@code openai}, {@code anthropic}): the
 *       endpoint never answered, after its retries. A {@code policy_error} of the embedded
 *       {@code djl} model (a prompt longer than the model, say) is the policy's own outcome and
 *       is judged like any other ending.
 * </ul>
 */
public final class InfraFailure {
  private InfraFailure() {}

  /**
   * Why the tree is an infrastructure failure, or null when it is not.
   *
   * @param policy the policy that wrote the tree ({@code rollout_nodes.policy})
   * @param rootStatus the root's status
   * @param rootError the root's error text, or null
   * @param statuses the statuses of all the tree's nodes, the root's included
   */
  public static String of(String policy, String rootStatus, String rootError, List<String> statuses) {
    PolicyKind kind = Arrays.stream(PolicyKind.values()).filter(k -> k.key().equals(policy)).findFirst().orElse(null);
    if (kind == null) return null;
    if (TreeRows.isInfraFailure(rootStatus, kind)) {
      String detail = rootError == null || rootError.isBlank() ? "" : ": " + rootError;
      return kind.isEndpoint() && rootStatus.equals("policy_error")
          ? "the " + policy + " endpoint never answered the root" + detail
          : "the root ended " + rootStatus + detail;
    }
    Map<String, Integer> failed = new TreeMap<>();
    for (String s : statuses) if (TreeRows.isInfraFailure(s, kind)) failed.merge(s, 1, Integer::sum);
    if (failed.isEmpty()) return null;
    int n = failed.values().stream().mapToInt(Integer::intValue).sum();
    return n + " node(s) of the tree ended in an infrastructure failure " + failed;
  }
}
