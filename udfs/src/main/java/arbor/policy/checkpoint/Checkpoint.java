package arbor.policy.checkpoint;

import arbor.policy.files.HostTensor;
import java.util.List;
import java.util.Map;

/**
 * The whole training state of a run at a step: F32 master weights (HF names), the optimizer's
 * state, the RNG state, and the files of the model folder (config.json, tokenizer.json,
 * tokenizer_config.json with the chat template, generation_config.json).
 *
 * @param rng opaque bytes (the learner's serialised generator); empty when there is none
 */
public record Checkpoint(String runId, long step, List<HostTensor> weights,
    OptimizerState optimizer, byte[] rng, Map<String, byte[]> files) {

  public Checkpoint {
    if (runId == null || runId.isBlank()) {
      throw new IllegalArgumentException("checkpoint run id must not be blank");
    }
    if (step < 0) {
      throw new IllegalArgumentException("checkpoint step must be >= 0, got " + step);
    }
    weights = List.copyOf(weights);
    files = Map.copyOf(files);
    rng = rng == null ? new byte[0] : rng;
  }

  /** A weight by name, or an error naming the checkpoint. */
  public HostTensor weight(String name) {
    return weights.stream().filter(t -> t.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("checkpoint " + runId + "@" + step
            + " has no weight '" + name + "'"));
  }

  /** Total bytes of everything the checkpoint holds. */
  public long bytes() {
    long n = rng.length;
    for (HostTensor t : weights) {
      n += 4L * t.elementCount();
    }
    for (HostTensor t : optimizer.tensors()) {
      n += 4L * t.elementCount();
    }
    n += optimizer.json().length();
    for (byte[] f : files.values()) {
      n += f.length;
    }
    return n;
  }
}
