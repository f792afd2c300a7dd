package arbor.policy.holder;

/** Which policy weights: a training run and the checkpoint version within it. */
public record CheckpointKey(String runId, long version) {

  public CheckpointKey {
    if (runId == null || runId.isBlank()) {
      throw new IllegalArgumentException("checkpoint run id must not be blank");
    }
    if (version < 0) {
      throw new IllegalArgumentException("checkpoint version must be >= 0, got " + version);
    }
  }
}
