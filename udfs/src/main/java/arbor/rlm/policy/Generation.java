package arbor.rlm.policy;

/**
 * What a policy generated for one turn: the text, and - when the policy has them - the exact
 * prompt token ids it was conditioned on, the generated token ids, and their behaviour
 * log-probabilities (the training sample of that turn); why it ended and how it was sampled.
 */
public record Generation(String text, int[] promptTokenIds, int[] tokenIds, float[] logprobs, Finish finish,
    Sampling sampling) {

  /** Why a response ended; stored as {@link #key()} in {@code rollout_turns.finish_reason}. */
  public enum Finish {
    /** The model emitted a stop token. */
    STOP,
    /** {@code max_new_tokens} (or the tree's remaining token budget) cut it. */
    LENGTH,
    /** The node was stopped while the policy generated. */
    CANCELLED,
    /** A policy without tokens (scripted, replay, endpoints) returned text. */
    TEXT;

    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** The sampling parameters a turn was drawn with; {@link #NONE} for policies that do not sample. */
  public record Sampling(double temperature, double topP, int topK) {
    public static final Sampling NONE = new Sampling(0, 1, 0);
  }

  public Generation {
    if (finish == null || sampling == null) {
      throw new IllegalArgumentException("a generation needs its finish reason and sampling parameters");
    }
  }

  /** A turn of text from a policy that has no tokens and does not sample. */
  public static Generation ofText(String text) {
    return ofText(text, Sampling.NONE);
  }

  public static Generation ofText(String text, Sampling sampling) {
    return new Generation(text, null, null, null, Finish.TEXT, sampling);
  }

  /** Generated tokens: exact when the policy gave ids, otherwise about four characters each. */
  public int tokenCount() {
    return tokenIds != null ? tokenIds.length : (text.length() + 3) / 4;
  }

  /** Whether the response was cut before the policy ended it. */
  public boolean truncated() {
    return finish == Finish.LENGTH;
  }
}
