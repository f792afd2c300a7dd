package arbor.policy.checkpoint;

import arbor.policy.files.HostTensor;
import java.util.List;

/**
 * What an optimizer needs to continue exactly where it stopped, in a form the store needs no
 * knowledge of: named float tensors (AdamW's first and second moments per parameter) and a small
 * JSON document (its step count, hyper-parameters, anything else scalar).
 */
public record OptimizerState(List<HostTensor> tensors, String json) {

  public static final OptimizerState NONE = new OptimizerState(List.of(), "{}");

  public OptimizerState {
    tensors = List.copyOf(tensors);
    if (json == null) {
      throw new IllegalArgumentException("optimizer state JSON must not be null (use \"{}\")");
    }
  }
}
