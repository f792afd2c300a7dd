package arbor.policy.files;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Reads one {@code .safetensors} file: an 8-byte little-endian header length, a JSON header
 * naming each tensor's dtype, shape and byte range, then the raw little-endian data. Tensors are
 * read one at a time, so loading never holds more than one tensor's bytes on the Java heap.
 */
public final class SafetensorsFile implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  /** A header larger than this is a corrupt file, not a model (the spec caps it at 100 MB). */
  private static final long MAX_HEADER = 100L << 20;

  private record Entry(TensorDtype dtype, long[] shape, long begin, long end) {}

  private final Path path;
  private final FileChannel channel;
  private final long dataStart;
  private final Map<String, Entry> entries = new LinkedHashMap<>();
  private final Map<String, String> metadata = new LinkedHashMap<>();

  public SafetensorsFile(Path path) throws IOException {
    this.path = path;
    this.channel = FileChannel.open(path, StandardOpenOption.READ);
    try {
      ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      readFully(len, 0);
      long headerLength = len.flip().getLong();
      if (headerLength <= 0 || headerLength > MAX_HEADER || 8 + headerLength > channel.size()) {
        throw new IOException(path + " is not a safetensors file (header length "
            + headerLength + ", file size " + channel.size() + ")");
      }
      ByteBuffer header = ByteBuffer.allocate((int) headerLength);
      readFully(header, 8);
      dataStart = 8 + headerLength;
      parseHeader(new String(header.array(), StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  private void parseHeader(String text) throws IOException {
    JsonNode root = JSON.readTree(text);
    long dataSize = channel.size() - dataStart;
    for (Map.Entry<String, JsonNode> f : root.properties()) {
      if (f.getKey().equals("__metadata__")) {
        f.getValue().properties().forEach(m -> metadata.put(m.getKey(), m.getValue().asText()));
        continue;
      }
      JsonNode t = f.getValue();
      TensorDtype dtype = TensorDtype.parse(t.path("dtype").asText(), f.getKey());
      long[] shape = new long[t.path("shape").size()];
      long count = 1;
      for (int i = 0; i < shape.length; i++) {
        shape[i] = t.get("shape").get(i).asLong();
        count *= shape[i];
      }
      long begin = t.path("data_offsets").path(0).asLong(-1);
      long end = t.path("data_offsets").path(1).asLong(-1);
      if (begin < 0 || end > dataSize || end - begin != count * dtype.bytes()) {
        throw new IOException(path + ": tensor '" + f.getKey() + "' has data_offsets [" + begin
            + ", " + end + "] that do not fit its shape/dtype or the file; the file is corrupt");
      }
      entries.put(f.getKey(), new Entry(dtype, shape, begin, end));
    }
  }

  public Set<String> names() {
    return entries.keySet();
  }

  public Map<String, String> metadata() {
    return metadata;
  }

  public boolean contains(String name) {
    return entries.containsKey(name);
  }

  /** Reads one tensor, widened to F32. */
  public HostTensor read(String name) throws IOException {
    Entry e = entries.get(name);
    if (e == null) {
      throw new IllegalArgumentException(path + " has no tensor '" + name + "'");
    }
    long bytes = e.end - e.begin;
    if (bytes / e.dtype.bytes() > Integer.MAX_VALUE - 8) {
      throw new IOException("Tensor '" + name + "' has more than 2^31 elements; not supported");
    }
    int n = (int) (bytes / e.dtype.bytes());
    float[] out = new float[n];
    // Read in bounded chunks: a 600 MB embedding never needs a 600 MB heap buffer.
    int chunkElems = 1 << 20;
    ByteBuffer buf = ByteBuffer.allocateDirect(chunkElems * e.dtype.bytes())
        .order(ByteOrder.LITTLE_ENDIAN);
    for (int done = 0; done < n; ) {
      int m = Math.min(chunkElems, n - done);
      buf.clear().limit(m * e.dtype.bytes());
      readFully(buf, dataStart + e.begin + (long) done * e.dtype.bytes());
      buf.flip();
      switch (e.dtype) {
        case F32 -> buf.asFloatBuffer().get(out, done, m);
        case F16 -> {
          for (int i = 0; i < m; i++) {
            out[done + i] = Float.float16ToFloat(buf.getShort(i * 2));
          }
        }
        case BF16 -> {
          for (int i = 0; i < m; i++) {
            out[done + i] = TensorDtype.bf16ToFloat(buf.getShort(i * 2));
          }
        }
      }
      done += m;
    }
    return new HostTensor(name, e.dtype, e.shape.clone(), out);
  }

  private void readFully(ByteBuffer buf, long position) throws IOException {
    long pos = position;
    while (buf.hasRemaining()) {
      int r = channel.read(buf, pos);
      if (r < 0) {
        throw new IOException(path + " ends early (truncated download?)");
      }
      pos += r;
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
