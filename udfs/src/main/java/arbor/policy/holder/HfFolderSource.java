package arbor.policy.holder;

import arbor.conf.DjlPolicySettings;
import ai.djl.Device;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.PolicyModel;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Path;

/**
 * Checkpoints as Hugging Face folders. With {@code perRun} false every key loads {@code root}
 * (the base model before any training step); otherwise key (run, v) loads
 * {@code root/<run>/v<version>}. The root is a local path or any Hadoop URI
 * ({@link RemoteModelFolder}), whose copies go to {@code cache}.
 */
public record HfFolderSource(String root, boolean perRun, DjlPolicySettings.Cache cache) implements CheckpointSource,
    Serializable {

  /** A local folder, which needs no cache. */
  public static HfFolderSource fixed(Path folder) {
    return new HfFolderSource(folder.toString(), false, null);
  }

  /** Local run folders, which need no cache. */
  public static HfFolderSource perRun(Path root) {
    return new HfFolderSource(root.toString(), true, null);
  }

  /** The folder of {@code key}: a local path, or a Hadoop URI. */
  public String folder(CheckpointKey key) {
    return perRun ? root + "/" + key.runId() + "/v" + key.version() : root;
  }

  @Override
  public PolicyModel load(CheckpointKey key, Device device) throws IOException {
    return HfModelFolder.load(RemoteModelFolder.local(folder(key), cache), device);
  }
}
