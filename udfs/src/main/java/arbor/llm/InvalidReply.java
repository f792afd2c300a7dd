package arbor.llm;

/** A reply that arrived but cannot be used (not JSON, a field missing or out of range); it is asked again. */
public final class InvalidReply extends Exception {
  public InvalidReply(String message) {
    super(message);
  }
}
