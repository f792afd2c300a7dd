package arbor.policy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import arbor.policy.files.HostTensor;
import arbor.policy.files.TensorDtype;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class Qwen3ModelTest {

  static Stream<Arguments> configs() {
    ModelConfig base = ModelConfig.qwen3(97, 32, 48, 2, 4, 2, 8, true);
    return Stream.of(
        Arguments.of("qwen3 GQA 2:1, tied, q/k norm", base),
        Arguments.of("qwen3 GQA 4:1, untied", ModelConfig.qwen3(97, 32, 40, 2, 4, 1, 16, false)),
        Arguments.of("MHA, head_dim*heads != hidden", ModelConfig.qwen3(61, 24, 32, 1, 3, 3, 12,
            false)),
        Arguments.of("qwen2: q/k/v bias, no q/k norm", base.withFamily("qwen2", true, false,
            false)),
        Arguments.of("llama: no bias, no norm, linear rope scaling", base
            .withFamily("llama", false, false, false)
            .withRope(10_000.0, new ModelConfig.RopeScaling("linear", 4.0, 1, 4, 8192))),
        Arguments.of("llama with attention_bias (q/k/v/o bias)", base.withFamily("llama", true,
            true, false)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configs")
  void logitsMatchANaivePlainJavaForward(String name, ModelConfig config) {
    Map<String, HostTensor> weights = HfModelFolder.byName(
        ScratchModel.weights(config, 7, TensorDtype.F32));
    int[] tokens = {3, 14, 15, 9, 26, 5, 35, 8, 9, 7, 9, 3};
    float[][] expected = new NaiveReference(config, weights).logits(tokens);
    try (Qwen3Model model = Qwen3Model.create(config, weights, Device.cpu());
        NDManager work = model.newWorkManager()) {
      long[] ids = java.util.Arrays.stream(tokens).asLongStream().toArray();
      NDArray logits = model.forward(work.create(ids, new Shape(1, tokens.length)));
      assertEquals(new Shape(1, tokens.length, config.vocabSize()), logits.getShape());
      float[] got = logits.toFloatArray();
      double maxDiff = 0;
      for (int t = 0; t < tokens.length; t++) {
        for (int v = 0; v < config.vocabSize(); v++) {
          maxDiff = Math.max(maxDiff,
              Math.abs(got[t * config.vocabSize() + v] - expected[t][v]));
        }
      }
      assertTrue(maxDiff < 1e-4, name + ": max |logit diff| = " + maxDiff);
    }
  }

  @Test
  void aBatchOfRightPaddedSequencesGivesEachSequencesOwnLogits() {
    ModelConfig config = ModelConfig.qwen3(97, 32, 48, 2, 4, 2, 8, false);
    Map<String, HostTensor> weights = HfModelFolder.byName(
        ScratchModel.weights(config, 11, TensorDtype.F32));
    int[] shortSeq = {5, 6, 7};
    float[][] expected = new NaiveReference(config, weights).logits(shortSeq);
    try (Qwen3Model model = Qwen3Model.create(config, weights, Device.cpu());
        NDManager work = model.newWorkManager()) {
      long[] batch = {1, 2, 3, 4, 5, 6, 5, 6, 7, 0, 0, 0};  // row 2 is shortSeq + 3 pads
      float[] got = model.forward(work.create(batch, new Shape(2, 6))).toFloatArray();
      int v = config.vocabSize();
      for (int t = 0; t < shortSeq.length; t++) {
        for (int j = 0; j < v; j++) {
          assertEquals(expected[t][j], got[(6 + t) * v + j], 1e-4);
        }
      }
    }
  }

  @Test
  void aMissingTensorIsNamedInTheError() {
    ModelConfig config = ModelConfig.qwen3(97, 32, 48, 1, 4, 2, 8, true);
    Map<String, HostTensor> weights = new java.util.HashMap<>(HfModelFolder.byName(
        ScratchModel.weights(config, 1, TensorDtype.F32)));
    weights.remove("model.layers.0.self_attn.k_norm.weight");
    var e = assertThrows(IllegalArgumentException.class,
        () -> Qwen3Model.create(config, weights, Device.cpu()));
    assertTrue(e.getMessage().contains("'model.layers.0.self_attn.k_norm.weight'"),
        e.getMessage());
  }

  @Test
  void anUnsupportedArchitectureIsNamedInTheError() {
    var e = assertThrows(IllegalArgumentException.class, () -> ModelConfig.parse(
        "{\"model_type\": \"gpt2\", \"architectures\": [\"GPT2LMHeadModel\"]}"));
    assertTrue(e.getMessage().contains("'gpt2'") && e.getMessage().contains("qwen3"),
        e.getMessage());
  }

  @Test
  void configJsonRoundTripsThroughTheRecord() {
    for (Arguments a : configs().toList()) {
      ModelConfig c = ((ModelConfig) a.get()[1]).withEos(List.of(5, 6));
      assertEquals(c, ModelConfig.parse(c.toJson()), (String) a.get()[0]);
    }
  }
}
