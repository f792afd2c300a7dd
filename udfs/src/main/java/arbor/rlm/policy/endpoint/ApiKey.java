package arbor.rlm.policy.endpoint;

import java.util.Map;

/** The API key of an endpoint, read from the environment variable the configuration names. */
final class ApiKey {
  private ApiKey() {}

  /**
   * The key in {@code env} under {@code variable}; a missing or empty one is an error naming the
   * variable and the setting, never a request sent without credentials.
   */
  static String from(Map<String, String> env, String variable, String settingKey) {
    if (variable == null || variable.isBlank()) {
      throw new IllegalArgumentException(settingKey + " is empty: name the environment variable"
          + " that holds the API key (e.g. OPENAI_API_KEY)");
    }
    String key = env.get(variable);
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException("the API key variable " + variable + " (" + settingKey
          + ") is not set in this environment: export it, or point " + settingKey
          + " at the variable that holds the key (a local server without authentication"
          + " accepts any non-empty value)");
    }
    return key;
  }
}
