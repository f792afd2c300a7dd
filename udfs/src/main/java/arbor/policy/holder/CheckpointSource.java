package arbor.policy.holder;

import ai.djl.Device;
import arbor.policy.model.PolicyModel;
import java.io.IOException;

/**
 * Where policy checkpoints come from: a Hugging Face folder now, the Delta checkpoint table of
 * the training loop later. Implementations are small serialisable values (records), so an
 * executor-side function can carry one.
 */
public interface CheckpointSource {

  /** Loads the weights of {@code key} onto {@code device}; the caller owns the result. */
  PolicyModel load(CheckpointKey key, Device device) throws IOException;
}
