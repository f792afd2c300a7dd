package arbor.llm;

/**
 * Asking an endpoint until a reply can be used: a request that fails (the SDK makes one request
 * per attempt) or a reply that is an {@link InvalidReply} is asked again, after a wait that
 * starts at {@code backoffMillis} and doubles. After the last attempt the outcome is the last
 * reason, in words, never an exception: a judge records it as the verdict, a generator as the
 * group's error.
 *
 * @param timeoutSeconds each request's timeout, to tell a timeout from another failure (a number as
 *     its setting holds it, and so as the reason spells it)
 * @param timeoutKey the setting of that timeout, named in the reason
 */
public record Retries(int attempts, long backoffMillis, Number timeoutSeconds, String timeoutKey) {

  public Retries {
    if (attempts < 1) throw new IllegalArgumentException("attempts must be at least 1, got " + attempts);
    if (backoffMillis < 0) throw new IllegalArgumentException("backoff must not be negative, got " + backoffMillis);
  }

  /** One request and the reading of its reply; a RuntimeException is a failed request. */
  @FunctionalInterface
  public interface Attempt<T> {
    T call() throws InvalidReply;
  }

  /** A usable reply, or why there is none. */
  public sealed interface Outcome<T> {
    record Replied<T>(T value) implements Outcome<T> {}

    /** {@code reason} says how many attempts were made; {@code interrupted}: the thread was, while waiting to retry. */
    record Failed<T>(String reason, boolean interrupted) implements Outcome<T> {}
  }

  public <T> Outcome<T> run(Attempt<T> attempt) {
    String reason = "no attempt made";
    long backoff = backoffMillis;
    for (int n = 1; n <= attempts; n++) {
      if (n > 1) {
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return new Outcome.Failed<>("interrupted after " + (n - 1) + " attempt(s): " + reason, true);
        }
        backoff *= 2;
      }
      long start = System.nanoTime();
      try {
        return new Outcome.Replied<>(attempt.call());
      } catch (InvalidReply e) {
        reason = "invalid reply: " + e.getMessage();
      } catch (RuntimeException e) {
        boolean timedOut = (System.nanoTime() - start) / 1e9 >= timeoutSeconds.doubleValue() - 0.05;
        reason = timedOut ? "timeout: no reply within " + timeoutSeconds + " s (" + timeoutKey + ")"
            : "request failed: " + SdkErrors.describe(e);
      }
    }
    return new Outcome.Failed<>("after " + attempts + " attempt(s): " + reason, false);
  }
}
