package arbor.pipelines.checkpoints;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import arbor.conf.LearnerSettings;
import arbor.e2e.TestEnv;
import arbor.pipelines.warehouse.Warehouse;
import arbor.policy.checkpoint.AdamWStates;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.checkpoint.OptimizerState;
import arbor.policy.files.HostTensor;
import arbor.policy.files.TensorDtype;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import arbor.policy.model.ScratchModel;
import arbor.policy.train.AdamWState;
import arbor.policy.train.BatchShape;
import arbor.policy.train.PolicyForward;
import arbor.policy.train.PolicyUpdate;
import arbor.policy.train.ResponseSample;
import arbor.policy.train.TrainSample;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run stopped after step 2 and resumed from the checkpoints table takes the same step 3 as a
 * run that never stopped: the weights, AdamW's moments and step count, and the reference policy
 * (the step-0 checkpoint) all come back from Delta.
 */
class ExactResumeTest {

  private static final ModelConfig CONFIG = ModelConfig.qwen3(64, 32, 64, 2, 4, 2, 8, true);
  private static final double TEMPERATURE = 1.0;
  /** A large lr so that three steps move the weights well past float noise. */
  private static final LearnerSettings LEARNER =
      new LearnerSettings(1e-3, 0.01, 0.9, 0.999, 1e-8, 1.0, 0.2, 0.01, "tree", 20, 3);

  @TempDir Path dir;

  private static Map<String, HostTensor> byName(List<HostTensor> tensors) {
    Map<String, HostTensor> m = new LinkedHashMap<>();
    tensors.forEach(t -> m.put(t.name(), t));
    return m;
  }

  private static Qwen3Model initial() {
    return Qwen3Model.create(CONFIG, byName(ScratchModel.weights(CONFIG, 4, TensorDtype.F32)),
        Device.cpu());
  }

  /** Two roots of one query (A = +1, -1) and a child of the first, behaviour log-probs fixed. */
  private static List<TrainSample> samples() {
    int[][] prompts = {{1, 2, 3, 4, 5}, {1, 2, 3, 4, 5}, {7, 8, 9}};
    int[][] responses = {{10, 11, 12, 13}, {40, 41, 42}, {20, 21}};
    double[] adv = {1, -1, 1};
    String[] node = {"r0", "r1", "r0.c0"};
    List<TrainSample> out = new ArrayList<>();
    try (Qwen3Model behaviour = initial(); NDManager work = NDManager.newBaseManager()) {
      PolicyForward f = new PolicyForward(behaviour, TEMPERATURE);
      for (int i = 0; i < prompts.length; i++) {
        float[] lp = f.scoreFrozen(work, List.of(new ResponseSample(prompts[i], responses[i])))
            .logProbs().toFloatArray();
        out.add(new TrainSample("q", node[i], 0, adv[i], 1.0, responses[i].length, prompts[i],
            responses[i], lp));
      }
    }
    return out;
  }

  /** One query with two roots; every sample is a whole node of weight 1: mass 1 each. */
  private static BatchShape shape(List<TrainSample> samples) {
    long tokens = 0;
    for (TrainSample s : samples) {
      tokens += s.responseIds().length;
    }
    return BatchShape.of(List.of(new BatchShape.QueryTotals("q", 2, tokens, samples.size())));
  }

  private static Checkpoint checkpoint(long step, Qwen3Model policy, AdamWState state) {
    return new Checkpoint("run", step, policy.toHostTensors(),
        AdamWStates.toOptimizerState(state), new byte[0], Map.of(HfModelFolder.CONFIG,
            CONFIG.toJson().getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aRunResumedAfterStep2TakesTheSameStep3AsOneThatNeverStopped() {
    List<TrainSample> samples = samples();
    BatchShape shape = shape(samples);

    // Uninterrupted: steps 1, 2, 3.
    List<HostTensor> want;
    AdamWState wantState;
    try (Qwen3Model policy = initial(); Qwen3Model reference = PolicyUpdate.frozenCopy(policy);
        PolicyUpdate update = new PolicyUpdate(policy, reference, LEARNER, TEMPERATURE)) {
      policy.setTrainable(true);
      for (int step = 1; step <= 3; step++) {
        update.step(shape, samples.iterator());
      }
      want = policy.toHostTensors();
      wantState = update.optimizer().exportState();
    }

    // Interrupted: step 0 and step 2 checkpoints, then everything is closed (the driver dies).
    SparkSession spark = TestEnv.spark();
    CheckpointStore store = new CheckpointStore(spark,
        new Warehouse(spark, dir.resolve("warehouse").toString()), 4096, Long.MAX_VALUE);
    try (Qwen3Model policy = initial(); Qwen3Model reference = PolicyUpdate.frozenCopy(policy);
        PolicyUpdate update = new PolicyUpdate(policy, reference, LEARNER, TEMPERATURE)) {
      policy.setTrainable(true);
      store.save(checkpoint(0, policy, update.optimizer().exportState()));
      for (int step = 1; step <= 2; step++) {
        update.step(shape, samples.iterator());
      }
      store.save(checkpoint(2, policy, update.optimizer().exportState()));
    }

    // Resumed: a fresh driver finds step 2, restores the policy, its optimizer and the
    // reference (the run's step 0), and takes step 3.
    Optional<Long> last = store.latest("run");
    assertEquals(Optional.of(2L), last);
    Checkpoint resume = store.load("run", last.get());
    Checkpoint start = store.load("run", 0);
    try (Qwen3Model policy = Qwen3Model.create(CONFIG, byName(resume.weights()), Device.cpu());
        Qwen3Model reference = Qwen3Model.create(CONFIG, byName(start.weights()), Device.cpu());
        PolicyUpdate update = new PolicyUpdate(policy, reference, LEARNER, TEMPERATURE)) {
      policy.setTrainable(true);
      update.optimizer().importState(AdamWStates.fromOptimizerState(resume.optimizer()));
      update.step(shape, samples.iterator());

      List<HostTensor> got = policy.toHostTensors();
      double maxDiff = 0;
      long differentBits = 0;
      long moved = 0;
      List<HostTensor> initialWeights = ScratchModel.weights(CONFIG, 4, TensorDtype.F32);
      for (int i = 0; i < want.size(); i++) {
        float[] a = want.get(i).values();
        float[] b = got.get(i).values();
        float[] w0 = initialWeights.get(i).values();
        for (int j = 0; j < a.length; j++) {
          maxDiff = Math.max(maxDiff, Math.abs(a[j] - b[j]));
          differentBits += Float.floatToRawIntBits(a[j]) != Float.floatToRawIntBits(b[j]) ? 1 : 0;
          moved += Math.abs(a[j] - w0[j]) > 1e-5 ? 1 : 0;
        }
      }
      System.out.printf("resume: max |uninterrupted - resumed| = %g, %d elements differ in bits%n",
          maxDiff, differentBits);
      assertTrue(moved > 1000, "three steps at lr 1e-3 should move the weights: " + moved);
      assertTrue(maxDiff <= 1e-6, "step 3 after resume differs by " + maxDiff);
      AdamWState gotState = update.optimizer().exportState();
      assertEquals(wantState.step(), gotState.step());
      for (String name : wantState.firstMoments().keySet()) {
        float[] a = wantState.secondMoments().get(name);
        float[] b = gotState.secondMoments().get(name);
        for (int j = 0; j < a.length; j++) {
          assertEquals(a[j], b[j], 1e-12, name);
        }
      }
    }
  }

  @Test
  void aStateThatIsNotAdamWsIsRefusedRatherThanResumedWithZeroMoments() {
    var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> AdamWStates.fromOptimizerState(OptimizerState.NONE));
    assertTrue(e.getMessage().contains("not AdamW's"), e.getMessage());
  }
}
