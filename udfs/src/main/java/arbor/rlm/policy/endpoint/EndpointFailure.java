package arbor.rlm.policy.endpoint;

import arbor.conf.EndpointSettings;
import arbor.rlm.policy.Policy.PolicyException;
import java.io.InterruptedIOException;
import java.util.OptionalInt;

/** Turns what an SDK threw, after its own retries, into a policy error that says what to do. */
final class EndpointFailure {
  private EndpointFailure() {}

  /**
   * @param api "openai" or "anthropic", the configuration block of the endpoint
   * @param status the HTTP status when the endpoint answered with an error
   */
  static PolicyException of(String api, EndpointSettings s, RuntimeException e,
      OptionalInt status) {
    String where = api + " policy (" + s.model() + " at " + s.baseUrl() + ")";
    int attempts = s.maxRetries() + 1;
    if (status.isPresent()) {
      int code = status.getAsInt();
      String hint = switch (code) {
        case 401, 403 -> "check the key in " + s.apiKeyEnv() + " (policy." + api
            + ".api_key_env)";
        case 404 -> "check policy." + api + ".base_url and policy." + api + ".model";
        case 400, 422 -> "the endpoint rejected the request; check policy." + api
            + ".model, temperature and max_tokens against what it accepts";
        case 408, 409, 429 -> "still failing after " + attempts + " attempts; raise policy." + api
            + ".max_retries or lower the request rate";
        default -> code >= 500 ? "the server failed " + attempts + " times; raise policy." + api
            + ".max_retries or check the server" : "see the endpoint's message";
      };
      return new PolicyException(where + " answered HTTP " + code + ": " + e.getMessage()
          + "; " + hint, e);
    }
    if (causedBy(e, InterruptedIOException.class)) {
      return new PolicyException(where + " timed out: no reply within " + s.timeoutSeconds()
          + " s, " + attempts + " attempts; raise policy." + api + ".timeout_seconds or check"
          + " that the server is up and not overloaded", e);
    }
    return new PolicyException(where + " failed: " + e + "; check policy." + api
        + ".base_url and that the server speaks the " + api + " API", e);
  }

  private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }
}
