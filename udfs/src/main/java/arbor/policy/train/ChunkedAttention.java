package arbor.policy.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import arbor.policy.model.Qwen3Model;

/**
 * Causal self-attention computed a block of queries at a time, so at most (heads x chunk x T)
 * scores exist at once instead of (heads x T x T). A query block [c0, c1) only attends to keys
 * [0, c1), which also skips the upper triangle's work.
 *
 * <p>Backward recomputes each block's scores with autograd on, back-propagates that block's
 * slice of the upstream gradient and frees it before the next block: activation memory stays
 * linear in T at the price of one more attention forward.
 */
final class ChunkedAttention {

  private final Qwen3Model model;
  private final int chunk;

  ChunkedAttention(Qwen3Model model, int chunk) {
    if (chunk < 1) {
      throw new IllegalArgumentException("attention chunk must be >= 1 query, got " + chunk);
    }
    this.model = model;
    this.chunk = chunk;
  }

  /**
   * Attention of q (B, nH, T, D) over k, v (B, nKv, T, D) with a causal mask: (B, T, nH * D),
   * in q's manager. With autograd off only one block's scores are alive at a time.
   */
  NDArray forward(NDArray q, NDArray k, NDArray v) {
    NDManager work = q.getManager();
    long t = q.getShape().get(2);
    NDList blocks = new NDList();
    for (long c0 = 0; c0 < t; c0 += chunk) {
      long c1 = Math.min(t, c0 + chunk);
      try (NDManager scope = work.newSubManager()) {
        NDArray out = block(scope, q, k, v, c0, c1);
        out.attach(work);
        blocks.add(out);
      }
    }
    return blocks.size() == 1 ? blocks.get(0) : NDArrays.concat(blocks, 1);
  }

  /**
   * Accumulates into the gradients of the leaves q, k, v (each created by
   * {@link Autograd#leaf}) the gradient of sum(forward(q, k, v) * upstream), upstream being
   * (B, T, nH * D).
   */
  void backward(NDArray q, NDArray k, NDArray v, NDArray upstream) {
    NDManager work = q.getManager();
    long t = q.getShape().get(2);
    for (long c0 = 0; c0 < t; c0 += chunk) {
      long c1 = Math.min(t, c0 + chunk);
      try (NDManager scope = work.newSubManager()) {
        NDArray out;
        try (Autograd.Scope on = Autograd.on()) {
          out = block(scope, q, k, v, c0, c1);
        }
        NDArray g = upstream.get(new NDIndex(":, {}:{}, :", c0, c1));
        g.attach(scope);
        Autograd.backward(out, g);
      }
    }
  }

  /** Queries [c0, c1) over keys [0, c1): (B, c1 - c0, nH * D), in {@code scope}. */
  private NDArray block(NDManager scope, NDArray q, NDArray k, NDArray v, long c0, long c1) {
    NDArray qc = q.get(new NDIndex(":, :, {}:{}, :", c0, c1));
    NDArray kc = k.get(new NDIndex(":, :, :{}, :", c1));
    NDArray vc = v.get(new NDIndex(":, :, :{}, :", c1));
    qc.attach(scope);
    kc.attach(scope);
    vc.attach(scope);
    NDArray queries = scope.arange((int) c0, (int) c1).reshape(c1 - c0, 1);      // (C, 1)
    NDArray keys = scope.arange(0, (int) c1).reshape(1, c1);          // (1, c1)
    NDArray mask = keys.gt(queries).toType(DataType.FLOAT32, false)  // key after query: hidden
        .mul(Qwen3Model.MASKED).reshape(1, 1, 1, c1 - c0, c1);
    return model.attention(qc, kc, vc, mask);
  }
}
