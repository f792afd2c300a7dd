package arbor.rlm.sandbox;

/**
 * Where RLM nodes run their Python: in isolated worker processes ({@link WorkerPool}, for model
 * code) or in this JVM ({@link InProcessSandbox}, trusted code only: tests and the scripted
 * expert). The sandbox owns its sessions' native resources; closing it closes them all.
 */
public sealed interface Sandbox extends AutoCloseable permits InProcessSandbox, WorkerPool {
  /**
   * Opens one node's REPL.
   *
   * @param contextJson the node's {@code context} as JSON: a str, or an object of paper id to text
   * @param question the node's prompt, bound as the reserved name {@code question}; null leaves it
   *     unbound (the published method: {@code rlm.bind_question = false})
   * @param bridge how {@code llm_query} and {@code rlm_query} reach the host
   */
  SandboxSession open(String contextJson, String question, HostBridge bridge);

  /** Opens one node's REPL with no {@code question} bound. */
  default SandboxSession open(String contextJson, HostBridge bridge) {
    return open(contextJson, null, bridge);
  }

  @Override
  void close();
}
