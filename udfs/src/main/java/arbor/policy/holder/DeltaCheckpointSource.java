package arbor.policy.holder;

import ai.djl.Device;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.checkpoint.DeltaCheckpointReader;
import arbor.policy.checkpoint.TableVersion;
import arbor.policy.files.HostTensor;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.PolicyModel;
import arbor.tables.Checkpoints.Kind;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Checkpoints from the warehouse's {@code checkpoints} Delta table, read where the policy runs:
 * key (run, v) is the complete checkpoint of that run at step v. The executor reads the table
 * itself with Delta Kernel through Hadoop's file systems, so the table may be on any Hadoop URI
 * the executors reach; nothing passes through the driver, and only weights and model files are
 * read (the optimizer state stays where it is).
 *
 * @param table the checkpoints table's URI ({@code <warehouse>/checkpoints})
 * @param hadoop extra Hadoop settings the executors need to reach it (may be empty)
 */
public record DeltaCheckpointSource(String table, Map<String, String> hadoop)
    implements CheckpointSource, Serializable {

  public DeltaCheckpointSource {
    hadoop = Map.copyOf(hadoop);
  }

  public DeltaCheckpointSource(String table) {
    this(table, Map.of());
  }

  @Override
  public PolicyModel load(CheckpointKey key, Device device) throws IOException {
    Checkpoint c = new DeltaCheckpointReader(table, hadoop).read(key.runId(), key.version(),
        TableVersion.LATEST, EnumSet.of(Kind.WEIGHT, Kind.FILE));
    return toPolicy(c, device);
  }

  /** The policy a checkpoint describes, with its config and files as they were saved. */
  public static PolicyModel toPolicy(Checkpoint c, Device device) throws IOException {
    byte[] config = c.files().get(HfModelFolder.CONFIG);
    if (config == null) {
      throw new IOException("checkpoint " + c.runId() + " step " + c.step() + " has no "
          + HfModelFolder.CONFIG + "; it was saved without its model config");
    }
    Map<String, HostTensor> weights = new LinkedHashMap<>();
    c.weights().forEach(t -> weights.put(t.name(), t));
    return HfModelFolder.assemble(ModelConfig.parse(new String(config, StandardCharsets.UTF_8)),
        weights, c.files(), device);
  }
}
