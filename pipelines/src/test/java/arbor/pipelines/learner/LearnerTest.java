package arbor.pipelines.learner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import arbor.conf.LearnerSettings;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import arbor.policy.model.ScratchModel;
import arbor.policy.train.PolicyForward;
import arbor.policy.train.ResponseSample;
import arbor.tables.Cols;
import arbor.tables.Metric;
import arbor.tables.Samples;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

class LearnerTest {

  private static final ModelConfig CONFIG = ModelConfig.qwen3(64, 32, 64, 2, 4, 2, 8, true);
  // The pipelines tests share one session; stopping it here would break every test after this one.
  private static final SparkSession spark = arbor.pipelines.spark.TestSpark.spark();

  private static Qwen3Model model() {
    return ScratchModel.model(CONFIG, 8, Device.cpu());
  }

  private static float[] logProbs(Qwen3Model model, int[] prompt, int[] response) {
    try (NDManager work = model.newWorkManager()) {
      return new PolicyForward(model, 1.0).scoreFrozen(work,
          List.of(new ResponseSample(prompt, response))).logProbs().toFloatArray();
    }
  }

  /**
   * samples rows as the advantages stage writes them: query q, root r0 (A = +1) with one child
   * (w = 1) answering over two turns, root r1 (A = -1). Behaviour log-probs are the model's.
   */
  private static Dataset<Row> samples(Qwen3Model model) {
    Object[][] rows = {
        // node, turn, root, depth, advantage, weight, node_gen_tokens, prompt, response
        {"r0", 0, "r0", 0, 1.0, 1.0, 4L, new int[] {1, 2, 3, 4, 5}, new int[] {10, 11, 12, 13}},
        {"r0.c0", 0, "r0", 1, 1.0, 1.0, 3L, new int[] {7, 8, 9}, new int[] {20, 21}},
        {"r0.c0", 1, "r0", 1, 1.0, 1.0, 3L, new int[] {7, 8, 9, 20, 21, 6}, new int[] {22}},
        {"r1", 0, "r1", 0, -1.0, 1.0, 3L, new int[] {1, 2, 3, 4, 5}, new int[] {40, 41, 42}},
    };
    List<Row> out = new ArrayList<>();
    int sample = 0;
    for (Object[] r : rows) {
      int[] prompt = (int[]) r[7];
      int[] response = (int[]) r[8];
      out.add(RowFactory.create("run", 3L, r[0], r[1], "q", sample++ % 2, r[2], r[3], r[4], r[5],
          r[6], boxed(prompt), boxed(response), boxed(logProbs(model, prompt, response)), 0L));
    }
    return spark.createDataFrame(out, Samples.SCHEMA).repartition(2);
  }

  @Test
  void aStepOverSamplesRowsMovesTheLogProbsByAdvantageAndLogsEveryMetric() {
    LearnerSettings settings = new LearnerSettings(1e-3, 0.01, 0.9, 0.999, 1e-8, 1.0, 0.2, 0.01,
        "tree", 16, 4);
    try (Qwen3Model policy = model(); Learner learner = Learner.create(policy, settings, 1.0)) {
      Dataset<Row> samples = samples(policy).cache();
      List<Row> before = samples.collectAsList();
      LearnerStepResult result = learner.step(samples, "run", 3);
      assertEquals(10, result.stats().tokens());
      assertEquals(4, result.stats().samples());
      assertTrue(result.stats().microBatches() > 1, "a budget of 16 takes several micro-batches");
      assertEquals(1.0, result.stats().meanRatio(), 1e-5);
      assertEquals(1, learner.optimizer().stepCount());
      Map<String, Double> logged = new HashMap<>();
      for (Row r : result.metrics().collectAsList()) {
        assertEquals("run", r.getString(0));
        assertEquals(3L, r.getLong(1));
        logged.put(r.getString(r.fieldIndex(Metric.NAME)), r.getDouble(r.fieldIndex(Metric.VALUE)));
      }
      for (String name : List.of("loss", "policy_loss", "kl", "clip_fraction", "mean_ratio",
          "entropy", "grad_norm", "tokens", "samples", "seconds")) {
        assertTrue(logged.containsKey("learner." + name), "metric learner." + name + " missing");
      }
      assertEquals(10.0, logged.get("learner.tokens"));
      for (Row r : before) {
        int[] prompt = unboxed(r.getList(r.fieldIndex(Cols.PROMPT_IDS)));
        int[] response = unboxed(r.getList(r.fieldIndex(Cols.RESPONSE_IDS)));
        List<Float> old = r.getList(r.fieldIndex(Cols.LOGPROBS));
        double was = old.stream().mapToDouble(Float::doubleValue).sum();
        double now = 0;
        for (float v : logProbs(policy, prompt, response)) {
          now += v;
        }
        double advantage = r.getDouble(r.fieldIndex(Samples.ADVANTAGE));
        assertTrue(advantage > 0 ? now > was : now < was,
            r.getString(r.fieldIndex(Cols.NODE_ID)) + ": " + was + " -> " + now);
      }
    }
  }

  @Test
  void theLearnerRefusesToRunInsideASparkTask() {
    String message = spark.range(1).map((MapFunction<Long, String>) x -> {
      try {
        Learner.create(null, LearnerSettings.defaults(), 1.0);
        return "created";
      } catch (IllegalStateException e) {
        return e.getMessage();
      }
    }, Encoders.STRING()).first();
    assertTrue(message.contains("runs on the driver only") && message.contains("Spark task"),
        message);
  }

  private static List<Integer> boxed(int[] v) {
    List<Integer> out = new ArrayList<>();
    for (int x : v) {
      out.add(x);
    }
    return out;
  }

  private static List<Float> boxed(float[] v) {
    List<Float> out = new ArrayList<>();
    for (float x : v) {
      out.add(x);
    }
    return out;
  }

  private static int[] unboxed(List<Integer> v) {
    return v.stream().mapToInt(Integer::intValue).toArray();
  }
}
