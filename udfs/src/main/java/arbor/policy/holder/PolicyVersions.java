package arbor.policy.holder;

import arbor.conf.DjlPolicySettings;
import ai.djl.Device;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.PolicyModel;
import java.io.IOException;
import java.io.Serializable;

/**
 * The policy by version: version 0 is the base model (the configured Hugging Face folder) in every
 * run; later versions are the training run's checkpoints, from {@code trained} (the Delta
 * {@code checkpoints} table once the learner writes it; null while there is none). A
 * {@link RunCheckpoints} source serves version 0 too: the run's own step-0 checkpoint, and then the
 * base folder and its cache are never read, so they are dropped: two configurations that differ
 * only there serve the same policies, and one JVM's model holder serves both.
 */
public record PolicyVersions(String baseModelDir, CheckpointSource trained, DjlPolicySettings.Cache cache) implements CheckpointSource, Serializable {

  public PolicyVersions {
    if (trained instanceof RunCheckpoints) {
      baseModelDir = null;
      cache = null;
    }
  }

  /** The run id that version 0 is keyed by: the base model is the same for every run. */
  public static final String BASE = "base";

  /** The key of {@code version} of run {@code runId}: version 0 is shared by all runs. */
  public static CheckpointKey key(String runId, long version) {
    return new CheckpointKey(version == 0 ? BASE : runId, version);
  }

  /** The key of {@code version} of run {@code runId} under this source (see {@link RunCheckpoints}). */
  public CheckpointKey keyOf(String runId, long version) {
    return trained instanceof RunCheckpoints ? new CheckpointKey(runId, version) : key(runId, version);
  }

  @Override
  public PolicyModel load(CheckpointKey key, Device device) throws IOException {
    if (key.version() == 0 && !(trained instanceof RunCheckpoints)) {
      if (baseModelDir == null || baseModelDir.isBlank()) {
        throw new IOException("the djl policy needs a model: set policy.djl.model_dir to a Hugging Face folder");
      }
      return HfModelFolder.load(RemoteModelFolder.local(baseModelDir, cache), device);
    }
    if (trained == null) {
      throw new IOException("policy version " + key.version() + " of run " + key.runId()
          + " is a trained checkpoint, and no checkpoint source is configured; version 0 is the base model");
    }
    return trained.load(key, device);
  }
}
