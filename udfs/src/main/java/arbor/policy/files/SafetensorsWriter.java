package arbor.policy.files;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Writes tensors to one {@code .safetensors} file, each in its own {@link HostTensor#dtype()}.
 * The header carries {@code "format": "pt"}, which {@code transformers} requires to load it.
 */
public final class SafetensorsWriter {

  private static final ObjectMapper JSON = new ObjectMapper();

  private SafetensorsWriter() {}

  public static void write(Path file, List<HostTensor> tensors) throws IOException {
    ObjectNode header = JSON.createObjectNode();
    header.putObject("__metadata__").put("format", "pt");
    long offset = 0;
    for (HostTensor t : tensors) {
      ObjectNode e = header.putObject(t.name());
      e.put("dtype", t.dtype().name());
      var shape = e.putArray("shape");
      for (long d : t.shape()) {
        shape.add(d);
      }
      long end = offset + t.elementCount() * t.dtype().bytes();
      e.putArray("data_offsets").add(offset).add(end);
      offset = end;
    }
    byte[] json = JSON.writeValueAsBytes(header);
    // Pad the header with spaces to a multiple of 8 so the data is aligned, as HF does.
    int padded = (json.length + 7) / 8 * 8;
    ByteBuffer head = ByteBuffer.allocate(8 + padded).order(ByteOrder.LITTLE_ENDIAN);
    head.putLong(padded).put(json);
    while (head.hasRemaining()) {
      head.put((byte) ' ');
    }
    try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      writeFully(out, head.flip());
      ByteBuffer buf = ByteBuffer.allocateDirect(1 << 22).order(ByteOrder.LITTLE_ENDIAN);
      for (HostTensor t : tensors) {
        float[] v = t.values();
        for (float x : v) {
          if (buf.remaining() < 4) {
            writeFully(out, buf.flip());
            buf.clear();
          }
          switch (t.dtype()) {
            case F32 -> buf.putFloat(x);
            case F16 -> buf.putShort(Float.floatToFloat16(x));
            case BF16 -> buf.putShort(TensorDtype.floatToBf16(x));
          }
        }
      }
      writeFully(out, buf.flip());
    }
  }

  private static void writeFully(FileChannel out, ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      out.write(buf);
    }
  }
}
