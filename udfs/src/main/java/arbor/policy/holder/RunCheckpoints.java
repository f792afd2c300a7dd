package arbor.policy.holder;

import ai.djl.Device;
import arbor.policy.model.PolicyModel;
import java.io.IOException;
import java.io.Serializable;

/**
 * Every version of a training run, version 0 included, from the run's checkpoints (the
 * {@code train} job writes or finds the run's step-0 checkpoint before any rollout): executors
 * then never read the driver's model folder, and a run that starts from an {@code sft}
 * checkpoint rolls out those weights at version 0, not the base model's.
 *
 * <p>{@code run} pins the source to one run's checkpoints whatever run id the rollouts are
 * written under: an evaluation rolls out training run {@code r}'s weights under a run id of its
 * own. Null: the rollouts' own run.
 */
public record RunCheckpoints(CheckpointSource table, String run) implements CheckpointSource, Serializable {

  public RunCheckpoints(CheckpointSource table) {
    this(table, null);
  }

  /** The same checkpoints, pinned to run {@code runId}. */
  public RunCheckpoints pinnedTo(String runId) {
    return new RunCheckpoints(table, runId);
  }

  /** The checkpoint that version {@code version} of rollouts under {@code rolloutRun} reads. */
  CheckpointKey keyOf(String rolloutRun, long version) {
    return new CheckpointKey(run == null ? rolloutRun : run, version);
  }

  @Override
  public PolicyModel load(CheckpointKey key, Device device) throws IOException {
    return table.load(key, device);
  }
}
