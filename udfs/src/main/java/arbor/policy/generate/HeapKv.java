package arbor.policy.generate;

import arbor.policy.model.ModelConfig;

/**
 * Keys and values of {@link KvBlocks}' blocks in the Java heap, for {@link VectorAttention}:
 * per layer, slabs of whole blocks, each allocated when one of its blocks is first written, so an
 * unused budget costs no memory. Within a block a head's keys are stored dimension-major
 * (headDim rows of blockSize positions), so one query's scores for a block's positions are one
 * multiply-add per dimension over contiguous memory; its values position-major (blockSize rows
 * of headDim), so adding a weighted value is one multiply-add per position.
 *
 * <p>Attention only reads positions its queries may see, all written before, so nothing needs
 * zeroing. Owned by the engine thread while it writes; read by the attention's threads after.
 */
final class HeapKv {

  /** Most floats in one slab array (16 MB): few arrays, and little memory taken ahead of need. */
  private static final int SLAB_FLOATS = 1 << 22;

  private final int kvHeads;
  private final int headDim;
  private final int blockSize;
  private final int blockFloats;
  private final int blocksPerSlab;
  private final int blocks;
  private final float[][][] keys;
  private final float[][][] values;

  HeapKv(ModelConfig config, int blocks, int blockSize) {
    this.kvHeads = config.numKvHeads();
    this.headDim = config.headDim();
    this.blockSize = blockSize;
    long floats = (long) kvHeads * headDim * blockSize;
    if (floats > SLAB_FLOATS) {
      throw new IllegalArgumentException("a KV block of " + blockSize + " positions holds "
          + floats + " floats per layer, more than a slab's " + SLAB_FLOATS
          + "; use a smaller policy.djl.engine.block_size");
    }
    this.blockFloats = (int) floats;
    this.blocksPerSlab = SLAB_FLOATS / blockFloats;
    this.blocks = blocks;
    int slabs = (blocks + blocksPerSlab - 1) / blocksPerSlab;
    this.keys = new float[config.numLayers()][slabs][];
    this.values = new float[config.numLayers()][slabs][];
  }

  int kvHeads() {
    return kvHeads;
  }

  int headDim() {
    return headDim;
  }

  int blockSize() {
    return blockSize;
  }

  /**
   * Stores head {@code h}'s key and value at position {@code slot} of {@code block}, read from
   * {@code k} and {@code v} at {@code from} (headDim floats each).
   */
  void write(int layer, int block, int slot, int h, float[] k, float[] v, int from) {
    int slab = block / blocksPerSlab;
    float[] ks = keys[layer][slab];
    if (ks == null) {
      int n = Math.min(blocksPerSlab, blocks - slab * blocksPerSlab) * blockFloats;
      ks = keys[layer][slab] = new float[n];
      values[layer][slab] = new float[n];
    }
    float[] vs = values[layer][slab];
    int base = (block % blocksPerSlab) * blockFloats + h * headDim * blockSize;
    for (int d = 0; d < headDim; d++) {
      ks[base + d * blockSize + slot] = k[from + d];
    }
    System.arraycopy(v, from, vs, base + slot * headDim, headDim);
  }

  /** The array holding {@code block}'s keys in {@code layer}; {@link #offset} says where. */
  float[] keys(int layer, int block) {
    return keys[layer][block / blocksPerSlab];
  }

  float[] values(int layer, int block) {
    return values[layer][block / blocksPerSlab];
  }

  /** Where head {@code h} of {@code block} starts in its slab, for keys and values alike. */
  int offset(int block, int h) {
    return (block % blocksPerSlab) * blockFloats + h * headDim * blockSize;
  }
}
