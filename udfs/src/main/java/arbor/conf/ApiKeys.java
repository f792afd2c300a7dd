package arbor.conf;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The API keys of the endpoints the configuration names ({@code policy.openai},
 * {@code policy.anthropic}, {@code judge.rubric}, {@code synthesis.llm}), read by the job from
 * the environment variables their {@code api_key_env} settings name, and carried from there as a
 * value (to the executors too): nothing below the jobs reads the environment. Keyed by the
 * variable's name, so a missing key's error can name it. Its text names the variables, never a key.
 */
public record ApiKeys(Map<String, String> byVariable) implements Serializable {
  public static final ApiKeys NONE = new ApiKeys(Map.of());

  public ApiKeys {
    byVariable = Map.copyOf(byVariable);
  }

  /** The keys {@code config}'s endpoints name that {@code env} (the job's environment) holds. */
  public static ApiKeys read(ArborConfig config, Map<String, String> env) {
    Map<String, String> keys = new LinkedHashMap<>();
    for (String variable : List.of(config.policy().openai().apiKeyEnv(), config.policy().anthropic().apiKeyEnv(),
        config.judge().rubric().apiKeyEnv(), config.synthesis().llm().apiKeyEnv())) {
      String key = variable == null || variable.isBlank() ? null : env.get(variable);
      if (key != null) keys.put(variable, key);
    }
    return new ApiKeys(keys);
  }

  @Override
  public String toString() {
    return "ApiKeys" + byVariable.keySet();
  }
}
