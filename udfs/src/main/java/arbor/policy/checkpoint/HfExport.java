package arbor.policy.checkpoint;

import arbor.policy.files.HostTensor;
import arbor.policy.files.TensorDtype;
import arbor.policy.model.HfModelFolder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes a checkpoint as a Hugging Face folder other tools load ({@code config.json},
 * {@code model.safetensors} or shards with an index, the tokenizer and generation files), its
 * weights narrowed to a chosen dtype, and measures what the narrowing cost: the exported
 * weights are read back and compared with the F32 masters.
 */
public final class HfExport {

  /** HF's usual shard size. */
  private static final long SHARD_BYTES = 5L << 30;
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The shard names HfModelFolder writes (and transformers' save_pretrained). */
  private static final java.util.regex.Pattern SHARD_NAME =
      java.util.regex.Pattern.compile("model-\\d{5}-of-\\d{5}\\.safetensors");

  private HfExport() {}

  /**
   * What an export wrote and how far its weights are from the masters.
   *
   * @param maxAbsDiff the largest |exported - master| over every element of every weight
   * @param worstTensor the weight where it occurs
   * @param changedFraction the fraction of elements whose exported value is not the master's
   */
  public record Report(Path dir, TensorDtype dtype, int tensors, long weightBytes,
      double maxAbsDiff, String worstTensor, double changedFraction) {}

  public static Report write(Checkpoint c, Path dir, TensorDtype dtype) throws IOException {
    return write(c, dir, dtype, SHARD_BYTES);
  }

  /**
   * As {@link #write(Checkpoint, Path, TensorDtype)}, the weights in shards of at most
   * {@code maxShardBytes} (with {@code model.safetensors.index.json}) when they are larger.
   */
  public static Report write(Checkpoint c, Path dir, TensorDtype dtype, long maxShardBytes)
      throws IOException {
    if (maxShardBytes < 1) {
      throw new IllegalArgumentException("export: the shard size must be at least 1 byte, got "
          + maxShardBytes);
    }
    byte[] config = c.files().get(HfModelFolder.CONFIG);
    if (config == null) {
      throw new IOException("checkpoint " + c.runId() + " step " + c.step() + " has no "
          + HfModelFolder.CONFIG + "; it cannot be exported as a model folder");
    }
    Files.createDirectories(dir);
    removeWeights(dir);
    List<HostTensor> narrowed = new ArrayList<>();
    for (HostTensor t : c.weights()) {
      narrowed.add(new HostTensor(t.name(), dtype, t.shape(), t.values()));
    }
    HfModelFolder.writeWeights(narrowed, dir, maxShardBytes);
    // The saved config as it was, with only the dtype changed: keys Arbor does not model survive.
    ObjectNode cfg = (ObjectNode) JSON.readTree(config);
    cfg.put("torch_dtype", dtype.torchName());
    Files.write(dir.resolve(HfModelFolder.CONFIG), JSON.writerWithDefaultPrettyPrinter()
        .writeValueAsBytes(cfg));
    for (Map.Entry<String, byte[]> f : c.files().entrySet()) {
      if (!f.getKey().equals(HfModelFolder.CONFIG) && !f.getKey().contains("/")) {
        Files.write(dir.resolve(f.getKey()), f.getValue());
      }
    }
    return compare(c, dir, dtype);
  }

  /**
   * Weight files an earlier export left in {@code dir}: a loader would take a stale
   * {@code model.safetensors} before the new shards' index, or a stale index before the new file.
   */
  private static void removeWeights(Path dir) throws IOException {
    Files.deleteIfExists(dir.resolve(HfModelFolder.WEIGHTS));
    Files.deleteIfExists(dir.resolve(HfModelFolder.INDEX));
    try (var files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (SHARD_NAME.matcher(f.getFileName().toString()).matches()) Files.delete(f);
      }
    }
  }

  private static Report compare(Checkpoint c, Path dir, TensorDtype dtype) throws IOException {
    Map<String, HostTensor> back = HfModelFolder.readWeights(dir);
    double max = 0;
    String worst = "";
    long changed = 0;
    long total = 0;
    for (HostTensor m : c.weights()) {
      HostTensor e = back.get(m.name());
      if (e == null) {
        throw new IOException("export to " + dir + " lost tensor '" + m.name() + "'");
      }
      float[] a = m.values();
      float[] b = e.values();
      for (int i = 0; i < a.length; i++) {
        double d = Math.abs((double) a[i] - b[i]);
        if (Float.floatToRawIntBits(a[i]) != Float.floatToRawIntBits(b[i])) {
          changed++;
        }
        if (d > max) {
          max = d;
          worst = m.name();
        }
      }
      total += a.length;
    }
    return new Report(dir, dtype, c.weights().size(), total * dtype.bytes(), max, worst,
        total == 0 ? 0 : (double) changed / total);
  }
}
