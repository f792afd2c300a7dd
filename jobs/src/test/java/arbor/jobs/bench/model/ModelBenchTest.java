package arbor.jobs.bench.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.policy.model.ModelConfig;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelBenchTest {

  @Test
  void theSmokeRunReportsTheThreeBenchKeysFirst() throws Exception {
    Map<String, Object> r = new ModelBench(ModelBench.Options.smoke(),
        new PrintStream(java.io.OutputStream.nullOutputStream())).run();
    List<String> keys = List.copyOf(r.keySet());
    assertEquals(List.of("decode_roofline_fraction_b32_100m", "decode_cost_ratio_4096_vs_128",
        "train_roofline_fraction_100m"), keys.subList(0, 3));
    for (int i = 0; i < 3; i++) {
      double v = (Double) r.get(keys.get(i));
      assertTrue(v > 0 && Double.isFinite(v), keys.get(i) + " = " + v);
    }
  }

  @Test
  void theHundredMillionConfigHasAboutAHundredMillionParameters() {
    ModelConfig c = ModelBench.Options.full().models().get(1).config();
    long total = ModelBench.totalParams(c);
    assertTrue(total > 90e6 && total < 110e6, "params " + total);
    ModelConfig small = ModelBench.Options.full().models().get(0).config();
    assertTrue(ModelBench.totalParams(small) > 8e6 && ModelBench.totalParams(small) < 16e6);
  }
}
