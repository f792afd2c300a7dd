package arbor.policy.checkpoint;

import arbor.tables.Checkpoints.Kind;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The manifest row's JSON: the save attempt it completes and every entry it holds. Its presence
 * is what makes a checkpoint visible; its entry list is what a reader checks the rows against.
 */
public record Manifest(String writeId, List<ManifestEntry> entries) {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int FORMAT = 1;

  public Manifest {
    entries = List.copyOf(entries);
  }

  public byte[] toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("write_id", writeId);
    ArrayNode list = root.putArray("entries");
    for (ManifestEntry e : entries) {
      ObjectNode o = list.addObject();
      o.put("name", e.name());
      o.put("kind", e.kind().name());
      o.put("dtype", e.dtype());
      ArrayNode shape = o.putArray("shape");
      for (long d : e.shape()) {
        shape.add(d);
      }
      o.put("bytes", e.bytes());
      o.put("chunks", e.chunks());
      o.put("sha256", e.sha256());
    }
    try {
      return JSON.writeValueAsBytes(root);
    } catch (IOException e) {
      throw new IllegalStateException("manifest JSON", e);
    }
  }

  /** Parses a manifest; {@code where} names the checkpoint in any error. */
  public static Manifest parse(byte[] json, String where) {
    JsonNode root;
    try {
      root = JSON.readTree(new String(json, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new CheckpointCorruptException(where + ": the manifest is not JSON (" + e.getMessage()
          + ")");
    }
    if (root.path("format").asInt() != FORMAT) {
      throw new CheckpointCorruptException(where + ": manifest format "
          + root.path("format") + " is not " + FORMAT + "; written by another Arbor version?");
    }
    List<ManifestEntry> entries = new ArrayList<>();
    for (JsonNode o : root.path("entries")) {
      long[] shape = new long[o.path("shape").size()];
      for (int i = 0; i < shape.length; i++) {
        shape[i] = o.get("shape").get(i).asLong();
      }
      entries.add(new ManifestEntry(o.path("name").asText(), Kind.valueOf(o.path("kind").asText()),
          o.path("dtype").asText(), shape, o.path("bytes").asLong(), o.path("chunks").asInt(),
          o.path("sha256").asText()));
    }
    return new Manifest(root.path("write_id").asText(), entries);
  }
}
