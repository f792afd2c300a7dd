package arbor.policy.generate;

import ai.djl.ndarray.NDArray;
import arbor.conf.DjlPolicySettings.Matmul;
import arbor.policy.kernels.Parallel;
import arbor.policy.kernels.TorchThreads;
import arbor.policy.model.HostDecoder;
import arbor.policy.model.Qwen3Model;
import arbor.policy.model.VectorLinear;
import java.util.List;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's choice of matmul kernel ({@code policy.djl.engine.matmul}), made once when the
 * engine starts. AUTO takes the vector kernels (matmul and attention) where they can run well: a
 * CPU model, a JVM with the incubator module and C2, and a heap with room for the packed weights
 * and the KV budget; it says in the log why not otherwise. VECTOR where it cannot run is an
 * error, not a silent fallback. The forward and the sampling follow the choice: the Java decoder
 * and sampler beside the vector kernels, libtorch's otherwise ({@link #hidden}, {@link #sample}).
 */
record EngineMatmul(Qwen3Model.Linear linear, HostDecoder decoder, String description) {

  private static final Logger LOG = LoggerFactory.getLogger(EngineMatmul.class);

  /** @param kvBytes the KV budget, which the vector kernels keep in the heap too */
  static EngineMatmul choose(Qwen3Model model, Matmul setting, long kvBytes) {
    if (setting == Matmul.TORCH) {
      return torch("configured");
    }
    if (setting == Matmul.VECTOR) {
      String missing = model.device().isGpu() ? "the model is on " + model.device()
          : VectorLinear.missing();
      if (missing != null) {
        throw new IllegalStateException("policy.djl.engine.matmul = vector, but " + missing
            + "; set it to auto or torch");
      }
      String slow = VectorLinear.slow();
      if (slow != null) {
        LOG.warn("generation engine: vector matmul as configured, though {}: expect it slower"
            + " than libtorch", slow);
      }
      return vector(model);
    }
    String why = reasonAgainst(model, kvBytes);
    if (why != null) {
      LOG.info("generation engine: libtorch matmul, because {}", why);
      return torch(why);
    }
    return vector(model);
  }

  private static EngineMatmul vector(Qwen3Model model) {
    VectorLinear v = new VectorLinear(TorchThreads.get(), model::weightsVersion);
    LOG.info("generation engine: vector matmul on {} thread(s); the packed weights take {} MB"
        + " of heap", v.threads(), VectorLinear.packedBytes(model.config()) >> 20);
    return new EngineMatmul(v, new HostDecoder(model, v), "vector (" + v.threads() + " threads)");
  }

  private static EngineMatmul torch(String why) {
    return new EngineMatmul(Qwen3Model.TORCH, null, "torch (" + why + ")");
  }

  private static String reasonAgainst(Qwen3Model model, long kvBytes) {
    if (model.device().isGpu()) {
      return "the model is on " + model.device();
    }
    String jvm = VectorLinear.slow();
    if (jvm != null) {
      return jvm;
    }
    Runtime rt = Runtime.getRuntime();
    long free = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    long packed = VectorLinear.packedBytes(model.config());
    if (packed + kvBytes > free * 3 / 4) {
      return "the packed weights (" + (packed >> 20) + " MB) and the KV budget (" + (kvBytes >> 20)
          + " MB) would take more than 3/4 of the heap left (" + (free >> 20) + " MB of -Xmx)";
    }
    return null;
  }

  /** The threads of the vector kernels, or null with libtorch's. */
  Parallel parallel() {
    return linear instanceof VectorLinear v ? v.parallel() : null;
  }

  /**
   * Final hidden states of one forward over several sequences (row i adds {@code counts[i]}
   * tokens at {@code starts[i]}...): the Java decoder over heap blocks beside the vector kernels,
   * else libtorch's over paged tensors.
   */
  NDArray hidden(Qwen3Model model, NDArray tokens, long[] positions, KvBlocks blocks,
      int[][] tables, int[] starts, int[] counts) {
    if (decoder != null) {
      return decoder.hidden(tokens, positions, blocks.inHeap(tables, starts, counts, parallel()));
    }
    return model.hidden(tokens, positions, blocks.paged(tokens.getManager(), tables, starts,
        counts), linear);
  }

  /**
   * Draws the next token of each row of final hidden states (rows, hidden): beside the vector
   * kernels the logits stay in Java and are sampled there, else libtorch samples them where
   * they are.
   */
  Sampler.Draw[] sample(Qwen3Model model, NDArray hidden, List<SamplingParams> params,
      List<SplittableRandom> rngs) {
    if (decoder == null) {
      return Sampler.sample(model.logits(hidden, linear), params, rngs);
    }
    return HostSampler.sample(decoder.logits(hidden), model.config().vocabSize(), params, rngs,
        parallel(), hidden.getManager());
  }

  void close() {
    if (linear instanceof VectorLinear v) {
      v.close();
    }
  }
}
