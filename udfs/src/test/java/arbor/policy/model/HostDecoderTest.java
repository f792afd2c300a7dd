package arbor.policy.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import arbor.policy.files.HostTensor;
import arbor.policy.files.TensorDtype;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class HostDecoderTest {

  private static final int[] TOKENS = {3, 14, 15, 9, 26, 5, 35, 8, 9, 7, 9, 3};

  /**
   * {@link NaiveReference}'s causal attention over the step's own keys and values (one row, no
   * cache), in the decoder's layouts: q (1, T, nH, D), k and v (1, T, nKv, D).
   */
  private static HostDecoder.Attention causal(ModelConfig c) {
    return (layer, q, k, v, t) -> {
      double[][] out = NaiveReference.causalAttention(byPosition(q, t, c.numHeads(), c.headDim()),
          byPosition(k, t, c.numKvHeads(), c.headDim()),
          byPosition(v, t, c.numKvHeads(), c.headDim()));
      float[] flat = new float[t * c.numHeads() * c.headDim()];
      for (int p = 0; p < t; p++) {
        for (int i = 0; i < out[p].length; i++) {
          flat[p * out[p].length + i] = (float) out[p][i];
        }
      }
      return flat;
    };
  }

  private static double[][][] byPosition(float[] a, int t, int heads, int d) {
    double[][][] out = new double[t][heads][d];
    for (int p = 0; p < t; p++) {
      for (int h = 0; h < heads; h++) {
        for (int e = 0; e < d; e++) {
          out[p][h][e] = a[(p * heads + h) * d + e];
        }
      }
    }
    return out;
  }

  /** A model of {@code config} with seeded random weights. */
  private static Qwen3Model model(ModelConfig config, long seed) {
    return Qwen3Model.create(config, HfModelFolder.byName(
        ScratchModel.weights(config, seed, TensorDtype.F32)), Device.cpu());
  }

  private static float[] hidden(HostDecoder decoder, Qwen3Model model, NDManager work) {
    long[] ids = Arrays.stream(TOKENS).asLongStream().toArray();
    long[] positions = new long[ids.length];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = i;
    }
    return decoder.hidden(work.create(ids, new Shape(1, ids.length)), positions,
        causal(model.config())).toFloatArray();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("arbor.policy.model.Qwen3ModelTest#configs")
  void logitsMatchANaivePlainJavaForward(String name, ModelConfig config) {
    Map<String, HostTensor> weights = HfModelFolder.byName(
        ScratchModel.weights(config, 7, TensorDtype.F32));
    float[][] expected = new NaiveReference(config, weights).logits(TOKENS);
    try (Qwen3Model model = Qwen3Model.create(config, weights, Device.cpu());
        VectorLinear linear = new VectorLinear(2, model::weightsVersion);
        NDManager work = model.newWorkManager()) {
      float[] h = hidden(new HostDecoder(model, linear), model, work);
      NDArray logits = model.logits(work.create(h, new Shape(TOKENS.length,
          config.hiddenSize())));
      float[] got = logits.toFloatArray();
      double maxDiff = 0;
      for (int t = 0; t < TOKENS.length; t++) {
        for (int v = 0; v < config.vocabSize(); v++) {
          maxDiff = Math.max(maxDiff, Math.abs(got[t * config.vocabSize() + v] - expected[t][v]));
        }
      }
      assertTrue(maxDiff < 1e-4, name + ": max |logit diff| = " + maxDiff);
    }
  }

  /**
   * A prefill of 3,000 tokens shares its element-wise passes and matmuls over the threads; 16
   * tokens run them on the caller. The first 16 rows must get the same bits either way.
   */
  @Test
  void aTokenGetsTheSameBitsInALongForwardSharedOverThreadsAsInAShortOne() {
    ModelConfig config = ModelConfig.qwen3(97, 32, 48, 2, 4, 2, 8, true);
    try (Qwen3Model model = model(config, 5);
        VectorLinear linear = new VectorLinear(3, model::weightsVersion);
        NDManager work = model.newWorkManager()) {
      HostDecoder decoder = new HostDecoder(model, linear);
      int n = 3000;
      long[] ids = new long[n];
      long[] positions = new long[n];
      for (int i = 0; i < n; i++) {
        ids[i] = (i * 31L + 7) % config.vocabSize();
        positions[i] = i;
      }
      float[] full = decoder.hidden(work.create(ids, new Shape(1, n)), positions,
          causal(config)).toFloatArray();
      int m = 16;
      float[] head = decoder.hidden(work.create(Arrays.copyOf(ids, m), new Shape(1, m)),
          Arrays.copyOf(positions, m), causal(config)).toFloatArray();
      assertArrayEquals(head, Arrays.copyOf(full, m * config.hiddenSize()));
    }
  }

  @Test
  void weightsChangedInPlaceAreUsedFromTheNextForward() {
    ModelConfig config = ModelConfig.qwen3(97, 32, 48, 2, 4, 2, 8, true);
    try (Qwen3Model model = model(config, 3);
        VectorLinear linear = new VectorLinear(1, model::weightsVersion);
        NDManager work = model.newWorkManager()) {
      HostDecoder decoder = new HostDecoder(model, linear);
      float[] before = hidden(decoder, model, work);
      // What a learner step does: update in place, then say so.
      model.parameters().get("model.layers.0.post_attention_layernorm.weight").muli(1.5f);
      model.parameters().get("model.layers.1.mlp.up_proj.weight").muli(0.5f);
      model.weightsChanged();
      float[] after = hidden(decoder, model, work);
      assertFalse(Arrays.equals(before, after));
      assertArrayEquals(hidden(new HostDecoder(model, linear), model, work), after);
    }
  }
}
