package arbor.llm;

/** What an LLM SDK threw, in words, for rows and logs that must say what happened. */
public final class SdkErrors {
  private SdkErrors() {}

  /** The exception and its causes: the SDKs wrap what went wrong in a bare "Request failed". */
  public static String describe(Throwable e) {
    StringBuilder text = new StringBuilder(e.getClass().getSimpleName() + ": " + e.getMessage());
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      text.append(" (").append(c.getClass().getSimpleName()).append(": ").append(c.getMessage()).append(')');
    }
    return text.toString();
  }
}
