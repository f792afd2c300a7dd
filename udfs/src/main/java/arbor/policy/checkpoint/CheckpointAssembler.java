package arbor.policy.checkpoint;

import arbor.policy.files.HostTensor;
import arbor.policy.files.TensorDtype;
import arbor.tables.Checkpoints.Kind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rebuilds a {@link Checkpoint} from its chunk rows, in any order, against its manifest: every
 * entry must arrive whole (all chunks, each of the expected size) and match its SHA-256. An
 * entry is decoded as soon as its last chunk arrives, so at most the chunks of unfinished
 * entries are held as bytes.
 */
public final class CheckpointAssembler {

  private final String runId;
  private final long step;
  private final Manifest manifest;
  private final Set<Kind> kinds;
  private final Map<String, ManifestEntry> expected = new LinkedHashMap<>();
  private final Map<String, byte[][]> pending = new HashMap<>();
  private final Map<String, Object> done = new HashMap<>();

  /**
   * @param kinds the kinds to keep (executors need only weights and files); rows of other kinds
   *     are skipped unread
   */
  public CheckpointAssembler(String runId, long step, Manifest manifest, Set<Kind> kinds) {
    this.runId = runId;
    this.step = step;
    this.manifest = manifest;
    this.kinds = kinds;
    for (ManifestEntry e : manifest.entries()) {
      if (kinds.contains(e.kind())) {
        expected.put(e.name(), e);
      }
    }
  }

  private String where() {
    return "checkpoint " + runId + " step " + step;
  }

  /** Takes one chunk row of the manifest's write; rows of unwanted kinds are ignored. */
  public void accept(String tensor, int chunk, byte[] data) {
    ManifestEntry e = expected.get(tensor);
    if (e == null) {
      return;
    }
    if (done.containsKey(tensor)) {
      throw new CheckpointCorruptException(where() + ": tensor '" + tensor + "' chunk " + chunk
          + " appears twice");
    }
    if (chunk < 0 || chunk >= e.chunks()) {
      throw new CheckpointCorruptException(where() + ": tensor '" + tensor + "' has chunk "
          + chunk + " but the manifest says it has " + e.chunks());
    }
    byte[][] parts = pending.computeIfAbsent(tensor, k -> new byte[e.chunks()][]);
    if (parts[chunk] != null) {
      throw new CheckpointCorruptException(where() + ": tensor '" + tensor + "' chunk " + chunk
          + " appears twice");
    }
    parts[chunk] = data;
    for (byte[] p : parts) {
      if (p == null) {
        return;
      }
    }
    pending.remove(tensor);
    done.put(tensor, decode(e, parts));
  }

  /** Whether the entry is one this assembler keeps (so a reader can skip reading its bytes). */
  public boolean wants(String tensor) {
    return expected.containsKey(tensor);
  }

  private Object decode(ManifestEntry e, byte[][] parts) {
    long total = 0;
    MessageDigest md = CheckpointChunks.digest();
    for (byte[] p : parts) {
      total += p.length;
      md.update(p);
    }
    if (total != e.bytes()) {
      throw new CheckpointCorruptException(where() + ": tensor '" + e.name() + "' has " + total
          + " bytes in its " + parts.length + " chunks, the manifest says " + e.bytes()
          + "; a chunk is truncated or corrupt");
    }
    String sha = HexFormat.of().formatHex(md.digest());
    if (!sha.equals(e.sha256())) {
      throw new CheckpointCorruptException(where() + ": tensor '" + e.name() + "' fails its"
          + " SHA-256 check (stored " + e.sha256() + ", data hashes to " + sha + "): a chunk of"
          + " it is corrupt. Load another step, or rewrite this one from a good copy.");
    }
    if (!e.dtype().equals(CheckpointChunks.F32)) {
      if (parts.length == 1) {
        return parts[0];
      }
      byte[] out = new byte[(int) total];
      int off = 0;
      for (byte[] p : parts) {
        System.arraycopy(p, 0, out, off, p.length);
        off += p.length;
      }
      return out;
    }
    float[] v = new float[Math.toIntExact(total / 4)];
    int off = 0;
    for (byte[] p : parts) {
      ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(v, off, p.length / 4);
      off += p.length / 4;
    }
    String name = e.kind() == Kind.OPTIMIZER
        ? e.name().substring(CheckpointChunks.OPTIMIZER_PREFIX.length()) : e.name();
    return new HostTensor(name, TensorDtype.F32, e.shape().clone(), v);
  }

  /** The checkpoint, once every wanted entry has arrived whole. */
  public Checkpoint finish() {
    List<String> missing = new ArrayList<>();
    for (String name : expected.keySet()) {
      if (!done.containsKey(name)) {
        byte[][] parts = pending.get(name);
        if (parts == null) {
          missing.add("'" + name + "' (no chunk)");
        } else {
          List<Integer> absent = new ArrayList<>();
          for (int i = 0; i < parts.length; i++) {
            if (parts[i] == null) {
              absent.add(i);
            }
          }
          missing.add("'" + name + "' (chunks " + absent + " of " + parts.length + ")");
        }
      }
    }
    if (!missing.isEmpty()) {
      throw new CheckpointCorruptException(where() + " (write " + manifest.writeId() + ") is"
          + " missing data for " + missing.size() + " entr" + (missing.size() == 1 ? "y" : "ies")
          + " its manifest lists, first: " + missing.get(0)
          + "; its files were removed (VACUUM?) or the table was edited by hand");
    }
    List<HostTensor> weights = new ArrayList<>();
    List<HostTensor> moments = new ArrayList<>();
    Map<String, byte[]> files = new LinkedHashMap<>();
    String optimizerJson = "{}";
    byte[] rng = new byte[0];
    for (ManifestEntry e : expected.values()) {
      Object v = done.get(e.name());
      switch (e.kind()) {
        case WEIGHT -> weights.add((HostTensor) v);
        case OPTIMIZER -> moments.add((HostTensor) v);
        case FILE -> files.put(e.name().substring(CheckpointChunks.FILE_PREFIX.length()),
            (byte[]) v);
        case STATE -> {
          if (e.name().equals(CheckpointChunks.OPTIMIZER_JSON)) {
            optimizerJson = new String((byte[]) v, StandardCharsets.UTF_8);
          } else if (e.name().equals(CheckpointChunks.RNG)) {
            rng = (byte[]) v;
          }
        }
        case MANIFEST -> { }
      }
    }
    return new Checkpoint(runId, step, weights, new OptimizerState(moments, optimizerJson), rng,
        files);
  }
}
