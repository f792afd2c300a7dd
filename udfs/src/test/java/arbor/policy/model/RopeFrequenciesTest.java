package arbor.policy.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

class RopeFrequenciesTest {

  private static final ModelConfig BASE = ModelConfig.qwen3(10, 8, 8, 1, 1, 1, 8, true)
      .withRope(10_000.0, null);

  @Test
  void unscaledFrequenciesAreThetaToTheMinusTwoIOverD() {
    // D = 8: 10000^(-0/8), ^(-2/8), ^(-4/8), ^(-6/8) = 1, 0.1, 0.01, 0.001
    assertArrayEquals(new double[] {1, 0.1, 0.01, 0.001}, RopeFrequencies.inverse(BASE), 1e-12);
  }

  @Test
  void llama3ScalingKeepsHighSlowsLowAndBlendsTheMiddle() {
    ModelConfig c = BASE.withRope(10_000.0,
        new ModelConfig.RopeScaling("llama3", 8.0, 1.0, 4.0, 8192));
    // Wavelengths 2*pi/f: 6.3, 63, 628 are below 8192/4 = 2048 (kept); 6283 lies between 2048
    // and 8192/1: smooth = (8192/6283.185 - 1) / (4 - 1) = 0.1012658, so
    // f = (1 - smooth) * 0.001 / 8 + smooth * 0.001 = 0.00011234 + 0.00010127 = 0.00021361.
    assertArrayEquals(new double[] {1, 0.1, 0.01, 0.00021361}, RopeFrequencies.inverse(c),
        1e-8);
  }

  @Test
  void linearScalingDividesEveryFrequency() {
    ModelConfig c = BASE.withRope(10_000.0, new ModelConfig.RopeScaling("linear", 4, 1, 4, 0));
    assertArrayEquals(new double[] {0.25, 0.025, 0.0025, 0.00025}, RopeFrequencies.inverse(c),
        1e-12);
  }
}
