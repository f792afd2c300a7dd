package arbor.policy.holder;

import ai.djl.Device;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.PolicyModel;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Path;

/**
 * Checkpoints as Hugging Face folders. With {@code perRun} false every key loads {@code root}
 * (the base model before any training step); otherwise key (run, v) loads
 * {@code root/<run>/v<version>}.
 */
public record HfFolderSource(String root, boolean perRun) implements CheckpointSource,
    Serializable {

  public static HfFolderSource fixed(Path folder) {
    return new HfFolderSource(folder.toString(), false);
  }

  public static HfFolderSource perRun(Path root) {
    return new HfFolderSource(root.toString(), true);
  }

  public Path folder(CheckpointKey key) {
    Path r = Path.of(root);
    return perRun ? r.resolve(key.runId()).resolve("v" + key.version()) : r;
  }

  @Override
  public PolicyModel load(CheckpointKey key, Device device) throws IOException {
    return HfModelFolder.load(folder(key), device);
  }
}
