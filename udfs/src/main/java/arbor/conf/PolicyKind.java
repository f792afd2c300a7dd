package arbor.conf;

import java.util.Locale;

/** The policies a tree can be written by; {@link #key()} is the name in configuration, CLI and tables. */
public enum PolicyKind {
  /** The trainable model, at a checkpoint version. */
  DJL,
  /** The expert that follows the strategy prompt. */
  SCRIPTED,
  /** Recorded responses by node path and turn. */
  REPLAY,
  /** An OpenAI-compatible endpoint. */
  OPENAI,
  /** Anthropic's messages API. */
  ANTHROPIC;

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether its answers come over a network, whose failures are the harness's, not the policy's. */
  public boolean isEndpoint() {
    return this == OPENAI || this == ANTHROPIC;
  }

  public static PolicyKind parse(String name) {
    for (PolicyKind k : values()) {
      if (k.key().equals(name)) {
        return k;
      }
    }
    throw new IllegalArgumentException("unknown policy '" + name + "'; the policies are djl, scripted, replay, openai, anthropic");
  }
}
