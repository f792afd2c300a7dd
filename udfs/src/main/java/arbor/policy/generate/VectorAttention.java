package arbor.policy.generate;

import arbor.policy.kernels.Exp;
import arbor.policy.kernels.Parallel;
import arbor.policy.model.HostDecoder;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Paged attention in Java for the engine's vector kernels ({@link HostDecoder}): like
 * {@link PagedBatch}, a forward over several sequences whose row i adds {@code counts[i]} tokens
 * at positions {@code starts[i]}..., but its keys and values live in {@link HeapKv} and each
 * query attends over its sequence's blocks where they are: nothing is gathered or padded, and a
 * decode step and a prefill chunk run the same code.
 *
 * <p>Batch-invariant by construction: a query's result depends on its own vector and the keys
 * and values it may see, never on the other rows, on padding, or on which thread computes it.
 * Every sum runs in position order (a score over the head dimensions in order, the softmax's sum
 * lane by lane over aligned positions, a weighted value over positions), and the exponential is
 * {@link Exp}, the same bits on every code path. The vectorised path needs the block size and
 * the head dimension to be multiples of the vector length; other shapes (the tests' tiny models)
 * take the scalar path, whose sums run in the same order, so both give the same bits.
 *
 * <p>The two four-query kernels spell out their eight accumulators, as the matmul kernel
 * ({@code PackedMatrix}) does: vectors passed to a shared helper escape and
 * are boxed when C2 leaves the helper out of line.
 */
final class VectorAttention implements HostDecoder.Attention {

  private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
  private static final int L = S.length();

  private final HeapKv kv;
  private final int[][] tables;
  private final int[] starts;
  private final int[] counts;
  private final Parallel threads;
  private final boolean vectorised;
  /** Where {@link Tile#scores4} leaves the values it loads ahead; never read. */
  @SuppressWarnings("unused")
  private float sink;

  /**
   * @param tables each row's blocks, covering at least {@code starts[i] + counts[i]} positions
   * @param threads whose threads share the queries
   */
  VectorAttention(HeapKv kv, int[][] tables, int[] starts, int[] counts, Parallel threads) {
    this.kv = kv;
    this.tables = tables;
    this.starts = starts;
    this.counts = counts;
    this.threads = threads;
    this.vectorised = vectorises(kv.blockSize(), kv.headDim());
  }

  /** Whether blocks of {@code blockSize} positions and heads of {@code headDim} vectorise. */
  static boolean vectorises(int blockSize, int headDim) {
    return blockSize % L == 0 && headDim % L == 0;
  }

  /**
   * Writes this step's keys and values to the cache, then attends: q (B, T, nH, D) is scaled in
   * place; k, v (B, T, nKv, D); returns (B, T, nH * D). Padded queries (beyond a row's count)
   * give zeros, which the caller ignores.
   */
  @Override
  public float[] attend(int layer, float[] q, float[] k, float[] v, int t) {
    int n = tables.length;
    int d = kv.headDim();
    int kvHeads = kv.kvHeads();
    int heads = q.length / (n * t * d);
    int bs = kv.blockSize();
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < counts[i]; j++) {
        int p = starts[i] + j;
        for (int h = 0; h < kvHeads; h++) {
          kv.write(layer, tables[i][p / bs], p % bs, h, k, v, ((i * t + j) * kvHeads + h) * d);
        }
      }
    }
    float scale = (float) (1.0 / Math.sqrt(d));
    for (int i = 0; i < q.length; i++) {
      q[i] *= scale;
    }
    float[] out = new float[n * t * heads * d];
    int tiles = (t + TILE - 1) / TILE;
    threads.forEach(n * kvHeads * tiles, task -> {
      int i = task / (kvHeads * tiles);
      int h = task / tiles % kvHeads;
      int from = task % tiles * TILE;
      int to = Math.min(counts[i], from + TILE);
      if (from < to) {
        new Tile(layer, i, h, heads / kvHeads, t, from, to, q, out).run();
      }
    });
    return out;
  }

  /** Query positions per task: enough work to share out, few enough to balance. */
  private static final int TILE = 32;

  /**
   * The queries of one row and kv head at positions [from, to): the {@code group} query heads
   * of each position, in position order. The vector path takes them four at a time, so each
   * key and value loaded serves four queries; a query's sums are the same with any neighbours.
   */
  private final class Tile {
    private final int layer;
    private final int[] table;
    private final int kvHead;
    private final int group;
    private final int start;
    private final int from;
    private final int count;
    private final float[] qs;
    private final float[] out;
    private final int outRow;
    private final int heads;
    private final int t;

    Tile(int layer, int row, int kvHead, int group, int t, int from, int to, float[] qs,
        float[] out) {
      this.layer = layer;
      this.table = tables[row];
      this.kvHead = kvHead;
      this.group = group;
      this.start = starts[row];
      this.from = from;
      this.count = (to - from) * group;
      this.qs = qs;
      this.out = out;
      this.heads = group * kv.kvHeads();
      this.t = t;
      this.outRow = row * t;
    }

    /** Query {@code k} of the tile: its position and head. */
    private int position(int k) {
      return from + k / group;
    }

    private int head(int k) {
      return kvHead * group + k % group;
    }

    private int queryAt(int k) {
      return ((outRow + position(k)) * heads + head(k)) * kv.headDim();
    }

    private int outAt(int k) {
      return ((outRow + position(k)) * heads + head(k)) * kv.headDim();
    }

    private int visible(int k) {
      return start + position(k) + 1;
    }

    void run() {
      int bs = kv.blockSize();
      int longest = (visible(count - 1) + bs - 1) / bs * bs;
      if (!vectorised) {
        float[] scores = new float[longest];
        for (int k = 0; k < count; k++) {
          attendScalar(layer, table, visible(k), kvHead, qs, queryAt(k), scores, out, outAt(k));
        }
        return;
      }
      float[][] w = new float[4][longest];
      int[] visible = new int[4];
      int[] query = new int[4];
      float[] sums = new float[4];
      for (int k0 = 0; k0 < count; k0 += 4) {
        // A short last group repeats its last query; the copies' results are not kept.
        for (int j = 0; j < 4; j++) {
          int k = Math.min(k0 + j, count - 1);
          visible[j] = visible(k);
          query[j] = queryAt(k);
        }
        int reach = visible[3];  // the group's queries are in position order
        scores4(query, reach, w);
        for (int j = 0; j < 4; j++) {
          float max = maxVector(w[j], visible[j]);
          for (int p = visible[j] / L * L; p < visible[j]; p++) {
            max = Math.max(max, w[j][p]);
          }
          sums[j] = expVector(w[j], visible[j], max);
          // Positions this query may not see weigh zero (its sums stay unchanged by them).
          Arrays.fill(w[j], visible[j], reach, 0f);
        }
        weighted4(reach, w, sums, k0);
      }
    }

    /**
     * Scores of four queries over positions [0, reach) rounded up to whole vectors: for each
     * position, the products over the head dimensions in order. Four vectors of positions at a
     * time, so sixteen chains of multiply-adds run side by side and four streams of keys are in
     * flight.
     *
     * <p>A decode step's attention waits on memory, not arithmetic: each query's keys and values
     * are read once, from blocks scattered over the heap. So each dimension step also loads one
     * cache line of the same positions' values, which {@link #weighted4} then finds in cache.
     * With the four key streams that took a batch-32 step's attention from 5.6-7.6 to 4.5-5.0 ms
     * on a 2-core host (docs/benchmarks.md).
     */
    private void scores4(int[] query, int reach, float[][] w) {
      int d = kv.headDim();
      int bs = kv.blockSize();
      int chunks = (reach + L - 1) / L;
      int o0 = query[0];
      int o1 = query[1];
      int o2 = query[2];
      int o3 = query[3];
      float touched = 0f;
      for (int c = 0; c < chunks; c += 4) {
        int n = Math.min(4, chunks - c);
        // Missing chunks of the last group repeat the first; their scores are not stored.
        int cb = n > 1 ? c + 1 : c;
        int cc = n > 2 ? c + 2 : c;
        int cd = n > 3 ? c + 3 : c;
        float[] ka = keysOf(layer, table, c);
        float[] kb = keysOf(layer, table, cb);
        float[] kc = keysOf(layer, table, cc);
        float[] kd = keysOf(layer, table, cd);
        int a = keyOffset(table, kvHead, c);
        int b = keyOffset(table, kvHead, cb);
        int e3 = keyOffset(table, kvHead, cc);
        int e4 = keyOffset(table, kvHead, cd);
        float[] va = valuesOf(layer, table, c);
        float[] vb = valuesOf(layer, table, cb);
        float[] vc = valuesOf(layer, table, cc);
        float[] vd = valuesOf(layer, table, cd);
        int pa = valueOffset(table, kvHead, c);
        int pb = valueOffset(table, kvHead, cb);
        int pc = valueOffset(table, kvHead, cc);
        int pd = valueOffset(table, kvHead, cd);
        FloatVector a0 = FloatVector.zero(S);
        FloatVector a1 = a0;
        FloatVector a2 = a0;
        FloatVector a3 = a0;
        FloatVector b0 = a0;
        FloatVector b1 = a0;
        FloatVector b2 = a0;
        FloatVector b3 = a0;
        FloatVector c0 = a0;
        FloatVector c1 = a0;
        FloatVector c2 = a0;
        FloatVector c3 = a0;
        FloatVector d0 = a0;
        FloatVector d1 = a0;
        FloatVector d2 = a0;
        FloatVector d3 = a0;
        for (int e = 0; e < d; e++) {
          // A chunk's values are L positions of d floats: L floats per dimension step.
          touched += va[pa + e * L] + vb[pb + e * L] + vc[pc + e * L] + vd[pd + e * L];
          FloatVector x = FloatVector.fromArray(S, ka, a + e * bs);
          FloatVector y = FloatVector.fromArray(S, kb, b + e * bs);
          FloatVector z = FloatVector.fromArray(S, kc, e3 + e * bs);
          FloatVector u = FloatVector.fromArray(S, kd, e4 + e * bs);
          FloatVector s0 = FloatVector.broadcast(S, qs[o0 + e]);
          a0 = s0.fma(x, a0);
          b0 = s0.fma(y, b0);
          c0 = s0.fma(z, c0);
          d0 = s0.fma(u, d0);
          FloatVector s1 = FloatVector.broadcast(S, qs[o1 + e]);
          a1 = s1.fma(x, a1);
          b1 = s1.fma(y, b1);
          c1 = s1.fma(z, c1);
          d1 = s1.fma(u, d1);
          FloatVector s2 = FloatVector.broadcast(S, qs[o2 + e]);
          a2 = s2.fma(x, a2);
          b2 = s2.fma(y, b2);
          c2 = s2.fma(z, c2);
          d2 = s2.fma(u, d2);
          FloatVector s3 = FloatVector.broadcast(S, qs[o3 + e]);
          a3 = s3.fma(x, a3);
          b3 = s3.fma(y, b3);
          c3 = s3.fma(z, c3);
          d3 = s3.fma(u, d3);
        }
        a0.intoArray(w[0], c * L);
        a1.intoArray(w[1], c * L);
        a2.intoArray(w[2], c * L);
        a3.intoArray(w[3], c * L);
        if (n > 1) {
          b0.intoArray(w[0], cb * L);
          b1.intoArray(w[1], cb * L);
          b2.intoArray(w[2], cb * L);
          b3.intoArray(w[3], cb * L);
        }
        if (n > 2) {
          c0.intoArray(w[0], cc * L);
          c1.intoArray(w[1], cc * L);
          c2.intoArray(w[2], cc * L);
          c3.intoArray(w[3], cc * L);
        }
        if (n > 3) {
          d0.intoArray(w[0], cd * L);
          d1.intoArray(w[1], cd * L);
          d2.intoArray(w[2], cd * L);
          d3.intoArray(w[3], cd * L);
        }
      }
      // Kept where the compiler must assume it is read, so the loads above are not dropped.
      sink = touched;
    }

    /**
     * Each query's output: the sum over positions [0, reach) of weight * value, positions in
     * order, divided by its softmax sum. Two vectors of dimensions for four queries at a time.
     */
    private void weighted4(int reach, float[][] w, float[] sums, int k0) {
      int d = kv.headDim();
      int bs = kv.blockSize();
      int blocks = (reach + bs - 1) / bs;
      float[] w0 = w[0];
      float[] w1 = w[1];
      float[] w2 = w[2];
      float[] w3 = w[3];
      for (int c = 0; c < d; c += 2 * L) {
        boolean pair = c + L < d;
        int second = pair ? L : 0;
        FloatVector a0 = FloatVector.zero(S);
        FloatVector a1 = a0;
        FloatVector a2 = a0;
        FloatVector a3 = a0;
        FloatVector b0 = a0;
        FloatVector b1 = a0;
        FloatVector b2 = a0;
        FloatVector b3 = a0;
        for (int bl = 0; bl < blocks; bl++) {
          int block = table[bl];
          float[] vs = kv.values(layer, block);
          int o = kv.offset(block, kvHead) + c;
          int base = bl * bs;
          int slots = Math.min(bs, reach - base);
          for (int s = 0; s < slots; s++) {
            int v = o + s * d;
            FloatVector x = FloatVector.fromArray(S, vs, v);
            FloatVector y = FloatVector.fromArray(S, vs, v + second);
            FloatVector s0 = FloatVector.broadcast(S, w0[base + s]);
            a0 = s0.fma(x, a0);
            b0 = s0.fma(y, b0);
            FloatVector s1 = FloatVector.broadcast(S, w1[base + s]);
            a1 = s1.fma(x, a1);
            b1 = s1.fma(y, b1);
            FloatVector s2 = FloatVector.broadcast(S, w2[base + s]);
            a2 = s2.fma(x, a2);
            b2 = s2.fma(y, b2);
            FloatVector s3 = FloatVector.broadcast(S, w3[base + s]);
            a3 = s3.fma(x, a3);
            b3 = s3.fma(y, b3);
          }
        }
        // Stores in reverse, so a repeated last query's copies leave the real one's result.
        store(k0 + 3, a3.div(sums[3]), b3.div(sums[3]), c, pair);
        store(k0 + 2, a2.div(sums[2]), b2.div(sums[2]), c, pair);
        store(k0 + 1, a1.div(sums[1]), b1.div(sums[1]), c, pair);
        store(k0, a0.div(sums[0]), b0.div(sums[0]), c, pair);
      }
    }

    private void store(int k, FloatVector a, FloatVector b, int c, boolean pair) {
      if (k >= count) {
        return;
      }
      int at = outAt(k) + c;
      a.intoArray(out, at);
      if (pair) {
        b.intoArray(out, at + L);
      }
    }
  }

  /** One query over positions [0, visible), without vectors: the other shapes' path. */
  private void attendScalar(int layer, int[] table, int visible, int h, float[] qs, int q,
      float[] scores, float[] out, int at) {
    int bs = kv.blockSize();
    int d = kv.headDim();
    int blocks = (visible + bs - 1) / bs;
    for (int b = 0; b < blocks; b++) {
      int block = table[b];
      float[] keys = kv.keys(layer, block);
      int o = kv.offset(block, h);
      for (int j = 0; j < bs; j++) {
        float acc = 0f;
        for (int e = 0; e < d; e++) {
          acc = Math.fma(qs[q + e], keys[o + e * bs + j], acc);
        }
        scores[b * bs + j] = acc;
      }
    }
    float max = Float.NEGATIVE_INFINITY;
    for (int j = 0; j < visible; j++) {
      max = Math.max(max, scores[j]);
    }
    // The softmax sum in the vector path's order (lane by lane, then the lanes in order), so
    // that engines whose block sizes take different paths still record the same bits.
    float[] lanes = new float[L];
    for (int j = 0; j < visible; j++) {
      scores[j] = Exp.of(scores[j] - max);
      lanes[j % L] += scores[j];
    }
    float sum = 0f;
    for (float lane : lanes) {
      sum += lane;
    }
    for (int c = 0; c < d; c++) {
      float acc = 0f;
      for (int b = 0; b < blocks; b++) {
        int block = table[b];
        float[] vs = kv.values(layer, block);
        int o = kv.offset(block, h) + c;
        int slots = Math.min(bs, visible - b * bs);
        for (int s = 0; s < slots; s++) {
          acc = Math.fma(scores[b * bs + s], vs[o + s * d], acc);
        }
      }
      out[at + c] = acc / sum;
    }
  }

  /** The largest of the scores in whole vectors below {@code visible} (a maximum is exact). */
  private static float maxVector(float[] scores, int visible) {
    FloatVector m = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
    for (int j = 0; j + L <= visible; j += L) {
      m = m.max(FloatVector.fromArray(S, scores, j));
    }
    return m.reduceLanes(VectorOperators.MAX);
  }

  /** Where chunk {@code chunk} (L positions) of a row's keys and values lie in the cache. */
  private float[] keysOf(int layer, int[] table, int chunk) {
    return kv.keys(layer, table[chunk / (kv.blockSize() / L)]);
  }

  private int keyOffset(int[] table, int h, int chunk) {
    int perBlock = kv.blockSize() / L;
    return kv.offset(table[chunk / perBlock], h) + chunk % perBlock * L;
  }

  private float[] valuesOf(int layer, int[] table, int chunk) {
    return kv.values(layer, table[chunk / (kv.blockSize() / L)]);
  }

  private int valueOffset(int[] table, int h, int chunk) {
    int perBlock = kv.blockSize() / L;
    return kv.offset(table[chunk / perBlock], h) + chunk % perBlock * L * kv.headDim();
  }

  /**
   * Replaces scores [0, visible) by exp(score - max) and the rest of the last vector by zeros;
   * returns their sum, lane by lane. (No masked operations: C2 leaves some of them to Java code.)
   */
  private static float expVector(float[] scores, int visible, float max) {
    int end = (visible + L - 1) / L * L;
    for (int j = 0; j < end; j += L) {
      Exp.of(FloatVector.fromArray(S, scores, j).sub(max)).intoArray(scores, j);
    }
    Arrays.fill(scores, visible, end, 0f);
    FloatVector sums = FloatVector.zero(S);
    for (int j = 0; j < end; j += L) {
      sums = sums.add(FloatVector.fromArray(S, scores, j));
    }
    float sum = 0f;
    for (float lane : sums.toArray()) {
      sum += lane;
    }
    return sum;
  }
}
