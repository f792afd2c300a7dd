package arbor.rlm.sandbox;

/**
 * The way out of a sandbox: {@code llm_query}, {@code rlm_query} and their batched forms call the
 * host through this. Arguments and results are JSON, so nothing but data crosses the boundary.
 */
@FunctionalInterface
public interface HostBridge {
  /**
   * @param name the built-in that called, e.g. {@code rlm_query}
   * @param argsJson its arguments as a JSON array
   * @return the result as a JSON value
   * @throws HostCallException when the call fails; its message becomes a Python RuntimeError
   */
  String call(String name, String argsJson) throws HostCallException;

  /** A bridge for sandboxes whose code may not call out (tests, tool-only sessions). */
  HostBridge NONE = (name, args) -> {
    throw new HostCallException(name + " is not available in this sandbox");
  };

  /** A host call failure that the model's code sees as an exception. */
  final class HostCallException extends Exception {
    public HostCallException(String message) {
      super(message);
    }
  }
}
