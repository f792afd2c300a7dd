package arbor.policy.checkpoint;

import arbor.policy.files.HostTensor;
import arbor.tables.Checkpoints.Kind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.TreeMap;

/**
 * Turns a {@link Checkpoint} into the rows of the {@code checkpoints} table: every entry (weight,
 * optimizer tensor, file, state) as little-endian bytes cut into chunks, with the SHA-256 of the
 * whole entry on each row, and the manifest that lists them. Chunks are made batch by batch, so
 * the bytes of at most one batch exist beside the checkpoint's own arrays.
 */
public final class CheckpointChunks {

  /** Entry name prefixes, so that weights, optimizer tensors and files never collide. */
  public static final String OPTIMIZER_PREFIX = "optimizer/";
  public static final String FILE_PREFIX = "file/";
  public static final String OPTIMIZER_JSON = "state/optimizer.json";
  public static final String RNG = "state/rng";
  public static final String F32 = "F32";
  public static final String BYTES = "BYTES";

  /** One entry's bytes, readable by range without materialising them all. */
  private interface Source {
    long size();

    void copy(long offset, byte[] dst, int length);
  }

  private record Entry(ManifestEntry info, Source source) {}

  private final List<Entry> entries = new ArrayList<>();
  private final int chunkBytes;
  private final Manifest manifest;

  /**
   * @param chunkBytes the most bytes one row carries (the table's binary column)
   */
  public CheckpointChunks(Checkpoint c, String writeId, int chunkBytes) {
    if (chunkBytes < 1024) {
      throw new IllegalArgumentException("checkpoint chunk size must be at least 1 KiB, got "
          + chunkBytes + " bytes");
    }
    this.chunkBytes = chunkBytes;
    for (HostTensor t : c.weights()) {
      add(t.name(), Kind.WEIGHT, t);
    }
    for (HostTensor t : c.optimizer().tensors()) {
      add(OPTIMIZER_PREFIX + t.name(), Kind.OPTIMIZER, t);
    }
    for (var f : new TreeMap<>(c.files()).entrySet()) {
      add(FILE_PREFIX + f.getKey(), Kind.FILE, f.getValue());
    }
    add(OPTIMIZER_JSON, Kind.STATE,
        c.optimizer().json().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    add(RNG, Kind.STATE, c.rng());
    this.manifest = new Manifest(writeId, entries.stream().map(Entry::info).toList());
  }

  public Manifest manifest() {
    return manifest;
  }

  /** The manifest as its own row. */
  public ChunkRow manifestRow() {
    byte[] json = manifest.toJson();
    return new ChunkRow(arbor.tables.Checkpoints.MANIFEST_NAME, 0, 1, Kind.MANIFEST, BYTES,
        new long[] {json.length}, sha256(json), json);
  }

  /** Total bytes of all chunks. */
  public long bytes() {
    return entries.stream().mapToLong(e -> e.info().bytes()).sum();
  }

  /** The chunk rows in batches of at most {@code batchBytes} (at least one chunk each). */
  public Iterator<List<ChunkRow>> batches(long batchBytes) {
    return new Iterator<>() {
      int entry = 0;
      int chunk = 0;

      @Override
      public boolean hasNext() {
        return entry < entries.size();
      }

      @Override
      public List<ChunkRow> next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        List<ChunkRow> batch = new ArrayList<>();
        long size = 0;
        while (entry < entries.size()) {
          Entry e = entries.get(entry);
          long offset = (long) chunk * chunkBytes;
          int len = (int) Math.min(chunkBytes, e.info().bytes() - offset);
          if (!batch.isEmpty() && size + len > batchBytes) {
            break;
          }
          byte[] data = new byte[len];
          e.source().copy(offset, data, len);
          ManifestEntry i = e.info();
          batch.add(new ChunkRow(i.name(), chunk, i.chunks(), i.kind(), i.dtype(), i.shape(),
              i.sha256(), data));
          size += len;
          if (++chunk >= i.chunks()) {
            entry++;
            chunk = 0;
          }
        }
        return batch;
      }
    };
  }

  private void add(String name, Kind kind, HostTensor t) {
    float[] v = t.values();
    Source s = new Source() {
      @Override
      public long size() {
        return 4L * v.length;
      }

      @Override
      public void copy(long offset, byte[] dst, int length) {
        // Offsets are multiples of 4: chunk sizes are checked to be.
        ByteBuffer.wrap(dst, 0, length).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer()
            .put(v, (int) (offset / 4), length / 4);
      }
    };
    addEntry(name, kind, F32, t.shape(), s);
  }

  private void add(String name, Kind kind, byte[] bytes) {
    Source s = new Source() {
      @Override
      public long size() {
        return bytes.length;
      }

      @Override
      public void copy(long offset, byte[] dst, int length) {
        System.arraycopy(bytes, (int) offset, dst, 0, length);
      }
    };
    addEntry(name, kind, BYTES, new long[] {bytes.length}, s);
  }

  private void addEntry(String name, Kind kind, String dtype, long[] shape, Source s) {
    if (chunkBytes % 4 != 0) {
      throw new IllegalArgumentException("checkpoint chunk size must be a multiple of 4 bytes, got "
          + chunkBytes);
    }
    long size = s.size();
    int chunks = (int) Math.max(1, (size + chunkBytes - 1) / chunkBytes);
    // Hash in one streaming pass through a small buffer, before any chunk exists.
    MessageDigest md = digest();
    byte[] buf = new byte[(int) Math.min(size, 1 << 20)];
    for (long off = 0; off < size; off += buf.length) {
      int len = (int) Math.min(buf.length, size - off);
      s.copy(off, buf, len);
      md.update(buf, 0, len);
    }
    entries.add(new Entry(new ManifestEntry(name, kind, dtype, shape, size, chunks,
        HexFormat.of().formatHex(md.digest())), s));
  }

  static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
  }

  static String sha256(byte[] data) {
    return HexFormat.of().formatHex(digest().digest(data));
  }
}
