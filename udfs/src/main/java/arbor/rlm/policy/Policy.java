package arbor.rlm.policy;

/**
 * What writes an RLM node's turns: a trainable model, an endpoint, the scripted expert, or a
 * replay file. Implementations are thread-safe: the nodes of many trees call one policy at once.
 */
public interface Policy {
  /** The next response of a node, given its whole conversation. */
  Generation generate(PolicyCall call) throws PolicyException;

  /**
   * A plain completion for {@code llm_query} from the code of node {@code node}: never a
   * training sample.
   */
  String complete(NodePath node, String prompt) throws PolicyException;

  /**
   * As {@link #complete(NodePath, String)}, drawn with {@code seed} ({@code arbor.rlm.TreeSeed}):
   * a sampling policy overrides it so that a rerun reproduces its completions.
   */
  default String complete(NodePath node, String prompt, long seed) throws PolicyException {
    return complete(node, prompt);
  }

  /**
   * As {@link #complete(NodePath, String, long)}, generating at most {@code maxNewTokens} tokens
   * (what is left of the tree's budget); the tokens are counted against that budget. Policies with
   * a token limit of their own override this to respect the bound.
   */
  default Generation complete(NodePath node, String prompt, long seed, int maxNewTokens) throws PolicyException {
    return Generation.ofText(complete(node, prompt, seed));
  }

  /** The policy could not answer; the node ends with status {@code policy_error}. */
  final class PolicyException extends Exception {
    public PolicyException(String message) {
      super(message);
    }

    public PolicyException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
