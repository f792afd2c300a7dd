package arbor.policy.checkpoint;

/**
 * A checkpoint's rows do not match its manifest: a chunk is missing, has the wrong size, or a
 * tensor fails its SHA-256 check. The message names the run, the step and the entry.
 */
public final class CheckpointCorruptException extends RuntimeException {
  public CheckpointCorruptException(String message) {
    super(message);
  }
}
