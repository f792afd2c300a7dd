package arbor.rlm.policy;

import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A deterministic policy whose responses are computed by Java code from the call (the node, the
 * turn, the exact conversation). The base of the scripted expert and of tests that need responses
 * depending on what a node was given, which a replay file keyed by path cannot express.
 */
public final class ScriptedPolicy implements Policy {
  private final Function<PolicyCall, String> script;
  private final BiFunction<NodePath, String, String> completions;

  public ScriptedPolicy(Function<PolicyCall, String> script, BiFunction<NodePath, String, String> completions) {
    this.script = script;
    this.completions = completions;
  }

  public ScriptedPolicy(Function<PolicyCall, String> script) {
    this(script, (node, prompt) -> "");
  }

  @Override
  public Generation generate(PolicyCall call) throws PolicyException {
    String text = script.apply(call);
    if (text == null) {
      throw new PolicyException("the script has no response for " + call.node() + " turn " + call.turn());
    }
    return Generation.ofText(text);
  }

  @Override
  public String complete(NodePath node, String prompt) {
    return completions.apply(node, prompt);
  }
}
