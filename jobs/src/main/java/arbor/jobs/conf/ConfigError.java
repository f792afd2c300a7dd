package arbor.jobs.conf;

/** A configuration that cannot be used; the message names the key, where it was set and why. */
public final class ConfigError extends RuntimeException {
  public ConfigError(String message) {
    super(message);
  }

  public ConfigError(String message, Throwable cause) {
    super(message, cause);
  }
}
