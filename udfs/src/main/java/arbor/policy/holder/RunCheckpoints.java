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
 */
public record RunCheckpoints(CheckpointSource table) implements CheckpointSource, Serializable {

  @Override
  public PolicyModel load(CheckpointKey key, Device device) throws IOException {
    return table.load(key, device);
  }
}
