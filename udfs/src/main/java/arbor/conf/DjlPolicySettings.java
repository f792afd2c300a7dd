package arbor.conf;

import java.io.Serializable;
import java.nio.file.Path;

/**
 * The {@code djl} policy: a Hugging Face model folder run by Arbor's generation engine.
 *
 * @param modelDir the HF folder (config.json, safetensors, tokenizer.json); empty means none
 *     configured (the {@code repl} job's {@code --model} gives one)
 * @param torchThreads libtorch intra-op threads for this JVM; 0 chooses from the cores this
 *     JVM may use and the machine's load ({@code TorchThreads.auto})
 * @param seed the base seed of trees run outside a training step (the {@code repl} job); the
 *     trees of a step take theirs from (run, step, query, sample), see {@code arbor.rlm.TreeSeed}
 * @param engine the generation engine's batching limits
 * @param sampling how each turn is sampled
 * @param cache where each JVM keeps its copies of models read from Hadoop URIs
 */
public record DjlPolicySettings(String modelDir, int torchThreads, long seed,
    Engine engine, Sampling sampling, Cache cache) implements Serializable {

  /**
   * @param dir the folder of the copies; "" = {@code arbor-models} in the JVM's temp folder
   * @param maxGb most gigabytes of complete copies kept; older unused ones are deleted
   */
  public record Cache(String dir, double maxGb) implements Serializable {
    public Cache {
      if (!(maxGb >= 0) || Double.isInfinite(maxGb)) {
        throw new IllegalArgumentException("policy.djl.cache.max_gb must be a number of gigabytes, 0 or more, got " + maxGb);
      }
    }

    public Path root() {
      return dir.isBlank() ? Path.of(System.getProperty("java.io.tmpdir"), "arbor-models") : Path.of(dir);
    }

    public long maxBytes() {
      return (long) (maxGb * (1L << 30));
    }
  }

  /**
   * @param maxBatch most sequences admitted together (prefilling or decoding)
   * @param prefillChunk most prompt tokens prefilled per engine step, over all sequences
   * @param kvBudgetMb memory for the KV cache, taken once: sequences that do not fit wait or
   *     are preempted
   * @param blockSize token positions per KV block (allocation and prefix-reuse unit)
   * @param prefixCache whether prefilled blocks are shared between sequences with the same
   *     prefix
   * @param matmul how the engine multiplies by the weights on the CPU
   */
  public record Engine(int maxBatch, int prefillChunk, int kvBudgetMb, int blockSize,
      boolean prefixCache, Matmul matmul) implements Serializable {

    /** The given limits with the matmul chosen automatically. */
    public Engine(int maxBatch, int prefillChunk, int kvBudgetMb, int blockSize,
        boolean prefixCache) {
      this(maxBatch, prefillChunk, kvBudgetMb, blockSize, prefixCache, Matmul.AUTO);
    }
  }

  /**
   * The engine's matmul kernel on the CPU (on a GPU it is always libtorch's).
   * {@code VECTOR}: weights packed once and multiplied with the Java Vector API (needs
   * {@code --add-modules=jdk.incubator.vector} and C2); {@code TORCH}: libtorch's GEMM;
   * {@code AUTO}: VECTOR when this JVM can run it well and the packed weights fit the heap.
   */
  public enum Matmul { AUTO, TORCH, VECTOR }

  /**
   * @param temperature 0 is greedy; the recorded log-probabilities are under
   *     softmax(logits / temperature), which the learner must use too
   * @param topP nucleus mass in (0, 1]
   * @param topK 0 keeps every token
   * @param maxNewTokens most tokens per turn
   */
  public record Sampling(double temperature, double topP, int topK, int maxNewTokens)
      implements Serializable {}
}
