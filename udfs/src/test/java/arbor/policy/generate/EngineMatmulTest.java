package arbor.policy.generate;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import arbor.conf.DjlPolicySettings.Matmul;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import arbor.policy.model.ScratchModel;
import arbor.policy.model.VectorLinear;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EngineMatmulTest {

  private static final ModelConfig CONFIG = ModelConfig.qwen3(64, 32, 64, 1, 4, 2, 8, true);
  private static Qwen3Model model;

  @BeforeAll
  static void load() {
    model = ScratchModel.model(CONFIG, 1, Device.cpu());
  }

  @AfterAll
  static void close() {
    model.close();
  }

  @Test
  void autoTakesTheVectorKernelOnlyWhereItRunsFastAndSaysWhyNot() {
    EngineMatmul m = EngineMatmul.choose(model, Matmul.AUTO, 1 << 20);
    try {
      String slow = VectorLinear.slow();
      if (slow != null) {
        // The test JVMs run C1 only (the pom's test flags): auto must not pick the vector API.
        assertSame(Qwen3Model.TORCH, m.linear());
        assertTrue(m.description().contains(slow), m.description());
      } else {
        assertInstanceOf(VectorLinear.class, m.linear());
      }
    } finally {
      m.close();
    }
  }

  @Test
  void explicitSettingsAreObeyed() {
    EngineMatmul torch = EngineMatmul.choose(model, Matmul.TORCH, 1 << 20);
    assertSame(Qwen3Model.TORCH, torch.linear());
    EngineMatmul vector = EngineMatmul.choose(model, Matmul.VECTOR, 1 << 20);
    try {
      assertInstanceOf(VectorLinear.class, vector.linear());
      assertTrue(vector.description().startsWith("vector"), vector.description());
    } finally {
      vector.close();
    }
  }
}
