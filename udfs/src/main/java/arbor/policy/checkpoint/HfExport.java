package arbor.policy.checkpoint;

import arbor.policy.model.HfModelFolder;
import arbor.policy.model.HostTensor;
import arbor.policy.model.TensorDtype;
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
    byte[] config = c.files().get(HfModelFolder.CONFIG);
    if (config == null) {
      throw new IOException("checkpoint " + c.runId() + " step " + c.step() + " has no "
          + HfModelFolder.CONFIG + "; it cannot be exported as a model folder");
    }
    Files.createDirectories(dir);
    List<HostTensor> narrowed = new ArrayList<>();
    for (HostTensor t : c.weights()) {
      narrowed.add(new HostTensor(t.name(), dtype, t.shape(), t.values()));
    }
    HfModelFolder.writeWeights(narrowed, dir, SHARD_BYTES);
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
