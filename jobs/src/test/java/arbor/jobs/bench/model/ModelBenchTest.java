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
    for (String k : List.of("decode_roofline_fraction_b32_100m", "decode_cost_ratio_4096_vs_128",
        "train_roofline_fraction_100m", "decode_attainable_fraction_b32_100m", "memory_gb_s")) {
      double v = (Double) r.get(k);
      assertTrue(v > 0 && Double.isFinite(v), k + " = " + v);
    }
    // What memory allows is never more than the matmul peak, so decode is a larger share of it.
    assertTrue((Double) r.get("decode_attainable_fraction_b32_100m") >= (Double) r.get("decode_roofline_fraction_b32_100m"), r.toString());
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
