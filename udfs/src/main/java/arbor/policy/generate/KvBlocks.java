package arbor.policy.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import arbor.policy.kernels.Parallel;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * The engine's KV memory: a fixed number of blocks of {@code blockSize} token positions, taken
 * from a byte budget once and never grown. With libtorch's attention, per layer, keys and values
 * are each one tensor of (blocks * kvHeads, blockSize, headDim): row {@code block * kvHeads + h}
 * holds head h of a block, so gathering a sequence's blocks head-major gives (kvHeads * blocks,
 * blockSize, headDim), which is already the (batch * kvHeads, positions, headDim) layout
 * attention multiplies with ({@link PagedBatch}). With the engine's vector kernels they live in
 * the Java heap instead ({@link HeapKv}, {@link VectorAttention}).
 *
 * <p>Also the prefix cache: a full block can be registered under its key (the key of the block
 * before it and its own tokens), and a later sequence whose tokens start the same way reuses it.
 * Blocks no sequence uses stay cached until memory is needed, least recently released first.
 *
 * <p>Block 0 is never handed out: padding positions of a batch write there and read from there.
 * Memory is zeroed lazily, in slices, as blocks are first used: an unused budget costs no RAM.
 *
 * <p>Owned by the engine thread; not thread-safe.
 */
final class KvBlocks implements AutoCloseable {

  /** The block every padding position points at. */
  static final int TRASH = 0;

  private final NDManager manager;
  private final int layers;
  private final int kvHeads;
  private final int blockSize;
  private final int total;
  private final NDArray[] keys;
  private final NDArray[] values;
  /** The heap storage, or null when the tensors hold the keys and values. */
  private final HeapKv heap;
  private final int[] refs;
  /** The prefix-cache entry of each block, or null. */
  private final BlockKey[] registered;
  private final long[] serials;
  private final Map<BlockKey, Integer> index = new HashMap<>();
  /** Registered blocks nobody uses, least recently released first. */
  private final LinkedHashSet<Integer> evictable = new LinkedHashSet<>();
  private final ArrayDeque<Integer> free = new ArrayDeque<>();
  private int zeroedUpTo;
  private int nextFresh;
  private long nextSerial = 1;
  private int inUse;
  private int peakInUse;

  /** What a cached block is known by: the entry before it (its serial) and its tokens. */
  record BlockKey(long parent, int[] tokens) {
    @Override
    public boolean equals(Object o) {
      return o instanceof BlockKey k && k.parent == parent && Arrays.equals(k.tokens, tokens);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(parent) * 31 + Arrays.hashCode(tokens);
    }
  }

  /** @param inHeap keep keys and values in the Java heap, for {@link VectorAttention} */
  KvBlocks(NDManager manager, ModelConfig config, long budgetBytes, int blockSize,
      boolean inHeap) {
    this.manager = manager;
    this.layers = config.numLayers();
    this.kvHeads = config.numKvHeads();
    this.blockSize = blockSize;
    long perBlock = bytesPerBlock(config, blockSize);
    long n = budgetBytes / perBlock;
    if (n < 2) {
      throw new IllegalArgumentException("KV budget of " + budgetBytes + " bytes holds " + n
          + " block(s) of " + blockSize + " positions (" + perBlock + " bytes each for this"
          + " model); it needs at least 2 (policy.djl.engine.kv_budget_mb)");
    }
    if (n * kvHeads > Integer.MAX_VALUE) {
      n = Integer.MAX_VALUE / kvHeads;
    }
    this.total = (int) n;
    this.heap = inHeap ? new HeapKv(config, total, blockSize) : null;
    this.keys = new NDArray[layers];
    this.values = new NDArray[layers];
    if (!inHeap) {
      Shape shape = new Shape((long) total * kvHeads, blockSize, config.headDim());
      for (int l = 0; l < layers; l++) {
        // Uninitialised: the pages are only committed when first written (zeroFresh).
        keys[l] = manager.create(shape, DataType.FLOAT32);
        values[l] = manager.create(shape, DataType.FLOAT32);
      }
    }
    this.refs = new int[total];
    this.registered = new BlockKey[total];
    this.serials = new long[total];
    this.nextFresh = 1;
    zeroThrough(0);
  }

  /**
   * The keys and values of one libtorch forward over several sequences (row i adds
   * {@code counts[i]} tokens at {@code starts[i]}...), in the tensors.
   */
  Qwen3Model.KvSource paged(NDManager work, int[][] tables, int[] starts, int[] counts) {
    if (heap != null) {
      throw new IllegalStateException("these blocks live in the heap: use inHeap");
    }
    return new PagedBatch(work, this, tables, starts, counts);
  }

  /** The same for the Java decoder, over the heap blocks, on {@code threads}. */
  VectorAttention inHeap(int[][] tables, int[] starts, int[] counts, Parallel threads) {
    if (heap == null) {
      throw new IllegalStateException("these blocks live in tensors: use paged");
    }
    return new VectorAttention(heap, tables, starts, counts, threads);
  }

  /** Bytes of keys and values one block takes, over all layers (F32). */
  static long bytesPerBlock(ModelConfig c, int blockSize) {
    return 2L * c.numLayers() * c.numKvHeads() * c.headDim() * blockSize * Float.BYTES;
  }

  int blockSize() {
    return blockSize;
  }

  /** Blocks sequences can use (the trash block excluded). */
  int capacity() {
    return total - 1;
  }

  int inUse() {
    return inUse;
  }

  int peakInUse() {
    return peakInUse;
  }

  /** Blocks a sequence could get now: free, never used, or cached but unused. */
  int available() {
    return free.size() + (total - nextFresh) + evictable.size();
  }

  int cached() {
    return index.size();
  }

  NDArray keys(int layer) {
    return keys[layer];
  }

  NDArray values(int layer) {
    return values[layer];
  }

  int kvHeads() {
    return kvHeads;
  }

  /** A block for one sequence, evicting the least recently used cached one if need be; -1 if none. */
  int allocate() {
    int b;
    if (!free.isEmpty()) {
      b = free.poll();
    } else if (nextFresh < total) {
      b = nextFresh++;
      zeroThrough(b);
    } else if (!evictable.isEmpty()) {
      var it = evictable.iterator();
      b = it.next();
      it.remove();
      index.remove(registered[b]);
      registered[b] = null;
    } else {
      return -1;
    }
    refs[b] = 1;
    count(1);
    return b;
  }

  /** The cached block that holds {@code tokens} after the entry {@code parent}; -1 if none. */
  int lookup(long parent, int[] tokens) {
    Integer b = index.get(new BlockKey(parent, tokens));
    return b == null ? -1 : b;
  }

  /** The serial a cached block's children are keyed by. */
  long serial(int block) {
    return serials[block];
  }

  /** Whether no sequence holds block {@code b}. */
  boolean unused(int b) {
    return refs[b] == 0;
  }

  /** Takes a reference to the cached block {@code b} (from {@link #lookup}). */
  void acquire(int b) {
    if (refs[b]++ == 0) {
      evictable.remove(b);
      count(1);
    }
  }

  /**
   * Registers the full block {@code b} under (parent, tokens) and returns the serial its
   * children are keyed by. If an equal block is already cached (computed by another sequence
   * meanwhile), {@code b} stays private and that block's serial is returned.
   */
  long register(int b, long parent, int[] tokens) {
    BlockKey key = new BlockKey(parent, tokens);
    Integer existing = index.get(key);
    if (existing != null) {
      return serials[existing];
    }
    index.put(key, b);
    registered[b] = key;
    serials[b] = nextSerial++;
    return serials[b];
  }

  /** A fresh root for chains of blocks: one per model version, so no entry crosses versions. */
  long newRoot() {
    return nextSerial++;
  }

  /** Forgets every cached entry (blocks still in use stay with their sequences, uncached). */
  void clearCache() {
    for (int b : evictable) {
      free.add(b);
    }
    evictable.clear();
    for (BlockKey k : index.keySet()) {
      registered[index.get(k)] = null;
    }
    index.clear();
  }

  /**
   * Gives back one sequence's blocks, last block first, so that a cached prefix outlives its
   * tails: a shared system prompt is the last thing evicted.
   */
  void release(int[] blocks, int count) {
    for (int i = count - 1; i >= 0; i--) {
      int b = blocks[i];
      if (--refs[b] == 0) {
        count(-1);
        if (registered[b] != null) {
          evictable.add(b);
        } else {
          free.add(b);
        }
      }
    }
  }

  private void count(int delta) {
    inUse += delta;
    peakInUse = Math.max(peakInUse, inUse);
  }

  /** Zeroes memory up to block {@code b}, a slice of blocks at a time, before its first use. */
  private void zeroThrough(int b) {
    if (b < zeroedUpTo || heap != null) {
      return;
    }
    // Never-written memory may hold NaNs, and padded attention reads whole blocks: a masked
    // score is exp() = 0 only if the key and value behind it are finite.
    int to = Math.min(total, Math.max(b + 1, zeroedUpTo + Math.max(16, Math.min(256, total / 64))));
    NDIndex rows = new NDIndex("{}:{}", (long) zeroedUpTo * kvHeads, (long) to * kvHeads);
    for (int l = 0; l < layers; l++) {
      keys[l].set(rows, 0f);
      values[l].set(rows, 0f);
    }
    zeroedUpTo = to;
  }

  void resetPeak() {
    peakInUse = inUse;
  }

  @Override
  public void close() {
    manager.close();
  }
}
