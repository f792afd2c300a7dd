package arbor.policy.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import arbor.policy.model.Qwen3Model;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Times the engine's decode step (cache write, attention over the cached blocks, LM head and
 * sampling) at a chosen context length, without prefilling that context first: the cost of a
 * step does not depend on the cached values, only on how many there are. It multiplies with the
 * kernel an engine with the same setting would choose here. For benchmarks; not used by generation.
 */
public final class DecodeProbe implements AutoCloseable {

  private static final int BLOCK = GenerationEngine.Options.DEFAULT_BLOCK_SIZE;

  private final Qwen3Model model;
  private final KvBlocks blocks;
  private final EngineMatmul matmul;
  private final int batch;
  private final int[][] tables;
  private final List<SamplingParams> params;
  private final List<SplittableRandom> rngs = new ArrayList<>();

  public DecodeProbe(Qwen3Model model, int batch, int maxContext,
      arbor.conf.DjlPolicySettings.Matmul matmul) {
    this.model = model;
    this.batch = batch;
    int perRow = Sequence.blocksFor(maxContext + 1, BLOCK);
    long bytes = KvBlocks.bytesPerBlock(model.config(), BLOCK) * ((long) perRow * batch + 1);
    this.matmul = EngineMatmul.choose(model, matmul, bytes);
    this.blocks = new KvBlocks(model.newWorkManager(), model.config(), bytes, BLOCK,
        this.matmul.parallel() != null);
    this.tables = new int[batch][perRow];
    for (int[] t : tables) {
      for (int j = 0; j < perRow; j++) {
        t[j] = blocks.allocate();
      }
    }
    this.params = Collections.nCopies(batch, new SamplingParams(1, 1, 0, 1, 0, Set.of()));
    for (int i = 0; i < batch; i++) {
      rngs.add(new SplittableRandom(i));
    }
  }

  /** Wall time of one decode step with every sequence at {@code context} cached tokens. */
  public double stepMillis(int context) {
    if (context + 1 > tables[0].length * BLOCK) {
      throw new IllegalArgumentException("context " + context + " exceeds the probe's capacity "
          + (tables[0].length * BLOCK - 1));
    }
    int[] starts = new int[batch];
    Arrays.fill(starts, context);
    int[] ones = new int[batch];
    Arrays.fill(ones, 1);
    long[] positions = new long[batch];
    Arrays.fill(positions, context);
    long t0 = System.nanoTime();
    try (NDManager work = model.newWorkManager()) {
      NDArray tokens = work.create(new long[batch], new Shape(batch, 1));
      NDArray hidden = matmul.hidden(model, tokens, positions, blocks, tables, starts, ones);
      matmul.sample(model, hidden.reshape(batch, -1), params, rngs);
    }
    return (System.nanoTime() - t0) / 1e6;
  }

  @Override
  public void close() {
    blocks.close();
    matmul.close();
  }
}
