package arbor.policy.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import arbor.policy.model.Qwen3Model;
import java.util.Arrays;

/**
 * Times the engine's decode step (cache write, attention over the cached context, LM head and
 * next-token distributions) at a chosen context length, without prefilling that context first:
 * the cost of a step does not depend on the cached values, only on how many there are. For
 * benchmarks; not used by generation.
 */
public final class DecodeProbe implements AutoCloseable {

  private final Qwen3Model model;
  private final BatchKvCache cache;
  private final int batch;

  public DecodeProbe(Qwen3Model model, int batch, int maxContext) {
    this.model = model;
    this.batch = batch;
    this.cache = new BatchKvCache(model.newWorkManager(), model.config(), batch, maxContext + 1);
  }

  /** Wall time of one decode step with every sequence at {@code context} cached tokens. */
  public double stepMillis(int context) {
    if (context + 1 > cache.capacity()) {
      throw new IllegalArgumentException("context " + context + " exceeds the probe's capacity "
          + (cache.capacity() - 1));
    }
    int[] lengths = new int[batch];
    Arrays.fill(lengths, context);
    long[] ids = new long[batch];
    long[] positions = new long[batch];
    Arrays.fill(positions, context);
    long t0 = System.nanoTime();
    try (NDManager work = model.newWorkManager()) {
      NDArray tokens = work.create(ids, new Shape(batch, 1));
      NDArray hidden = model.hidden(tokens, positions, cache.decode(work, lengths));
      NDArray logProbs = model.logits(hidden).logSoftmax(2);
      logProbs.toFloatArray();
      logProbs.exp().toFloatArray();
    }
    return (System.nanoTime() - t0) / 1e6;
  }

  @Override
  public void close() {
    cache.close();
  }
}
