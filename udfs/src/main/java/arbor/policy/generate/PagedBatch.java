package arbor.policy.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import arbor.policy.model.Qwen3Model;

/**
 * Keys and values for one forward over several sequences whose caches live in {@link KvBlocks}:
 * row i adds {@code counts[i]} tokens at positions {@code starts[i]}..., right-padded to the
 * longest row. Each layer writes the new keys and values into the rows' blocks (padding into the
 * trash block), then gathers every row's blocks into one padded (rows, kvHeads, positions,
 * headDim) tensor with a mask: causal inside the row, nothing of the padding.
 *
 * <p>A decode step is the case of one token per row; a batched prefill, of up to a chunk per row.
 *
 * <p>The model attends over it batch-invariantly ({@link Qwen3Model#invariantAttention}): the
 * gathered length is padded (with more trash blocks) to what that needs, and every position a
 * row must not see is masked, so a row's result is the same in any batch.
 */
final class PagedBatch implements Qwen3Model.KvSource {

  private final KvBlocks blocks;
  private final NDArray rowIndex;
  private final NDArray offsetIndex;
  private final NDArray gather;
  private final NDArray mask;
  private final long rows;
  private final long positions;

  /**
   * @param tables each row's blocks, covering at least {@code starts[i] + counts[i]} positions
   */
  PagedBatch(NDManager work, KvBlocks blocks, int[][] tables, int[] starts, int[] counts) {
    this.blocks = blocks;
    int n = tables.length;
    int bs = blocks.blockSize();
    int kvH = blocks.kvHeads();
    int tMax = 0;
    int needed = 0;
    for (int i = 0; i < n; i++) {
      tMax = Math.max(tMax, counts[i]);
      needed = Math.max(needed, starts[i] + counts[i]);
    }
    int s = keyLength(needed, bs);
    int mb = s / bs;
    long[] row = new long[n * tMax * kvH];
    long[] off = new long[n * tMax * kvH];
    for (int i = 0; i < n; i++) {
      for (int t = 0; t < tMax; t++) {
        boolean real = t < counts[i];
        int p = starts[i] + t;
        int block = real ? tables[i][p / bs] : KvBlocks.TRASH;
        for (int h = 0; h < kvH; h++) {
          int k = (i * tMax + t) * kvH + h;
          row[k] = (long) block * kvH + h;
          off[k] = real ? p % bs : 0;
        }
      }
    }
    long[] g = new long[n * kvH * mb];
    for (int i = 0; i < n; i++) {
      int used = (starts[i] + counts[i] + bs - 1) / bs;
      for (int h = 0; h < kvH; h++) {
        for (int j = 0; j < mb; j++) {
          int block = j < used ? tables[i][j] : KvBlocks.TRASH;
          g[(i * kvH + h) * mb + j] = (long) block * kvH + h;
        }
      }
    }
    float[] m = new float[n * tMax * s];
    for (int i = 0; i < n; i++) {
      for (int t = 0; t < tMax; t++) {
        // A padded query looks like the row's last real one: finite, and ignored by the caller.
        int sees = starts[i] + Math.min(t, counts[i] - 1);
        int base = (i * tMax + t) * s;
        for (int j = sees + 1; j < s; j++) {
          m[base + j] = Qwen3Model.MASKED;
        }
      }
    }
    this.rowIndex = work.create(row);
    this.offsetIndex = work.create(off);
    this.gather = work.create(g);
    this.mask = work.create(m, new Shape(n, 1, 1, tMax, s));
    this.rows = n;
    this.positions = s;
  }

  /**
   * Whole blocks covering {@code needed} positions, at least as many as invariant attention
   * needs ({@link Qwen3Model#invariantKeyLength}).
   */
  static int keyLength(int needed, int blockSize) {
    long s = needed;
    do {
      s = (Qwen3Model.invariantKeyLength(s) + blockSize - 1) / blockSize * blockSize;
    } while (s != Qwen3Model.invariantKeyLength(s));
    return Math.toIntExact(s);
  }

  @Override
  public NDArray attention(Qwen3Model model, int layer, NDArray q, NDArray k, NDArray v) {
    // k, v: (rows, kvHeads, T, headDim) -> one (rows * T * kvHeads, headDim) scatter each.
    NDManager work = k.getManager();
    long d = k.getShape().get(3);
    NDIndex write = new NDIndex("{}, {}", rowIndex, offsetIndex);
    blocks.keys(layer).set(write, k.transpose(0, 2, 1, 3).reshape(-1, d));
    blocks.values(layer).set(write, v.transpose(0, 2, 1, 3).reshape(-1, d));
    NDIndex read = new NDIndex("{}", gather);
    Shape shape = new Shape(rows, blocks.kvHeads(), positions, d);
    return model.invariantAttention(q, blocks.keys(layer).get(work, read).reshape(shape),
        blocks.values(layer).get(work, read).reshape(shape), mask);
  }
}
