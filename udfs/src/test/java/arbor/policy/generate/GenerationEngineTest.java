package arbor.policy.generate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import arbor.conf.DjlPolicySettings.Matmul;
import arbor.policy.files.TensorDtype;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import arbor.policy.model.ScratchModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class GenerationEngineTest {

  private static final ModelConfig CONFIG = ModelConfig.qwen3(64, 32, 64, 2, 4, 2, 8, false);
  private static Qwen3Model model;

  @BeforeAll
  static void load() {
    // Larger-than-default weights give peaked, seed-sensitive distributions.
    var weights = ScratchModel.weights(CONFIG, 42, TensorDtype.F32).stream()
        .map(t -> t.name().endsWith("norm.weight") ? t : scaled(t, 5f))
        .collect(Collectors.toMap(t -> t.name(), t -> t));
    model = Qwen3Model.create(CONFIG, weights, Device.cpu());
  }

  @AfterAll
  static void close() {
    model.close();
  }

  @ParameterizedTest(name = "{0} matmul")
  @EnumSource(Matmul.class)
  void kvCacheDecodingEqualsTheFullSequenceForward(Matmul matmul) {
    int[] prompt = {1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7};
    // Chunk 4: the 11-token prompt is prefilled in three chunks.
    try (GenerationEngine engine = new GenerationEngine(model,
        new GenerationEngine.Options(4, 4).withMatmul(matmul))) {
      Generation g = engine.generate(prompt, SamplingParams.greedy(20, Set.of()));
      assertEquals(20, g.tokenIds().length);
      assertEquals(Generation.FinishReason.LENGTH, g.finishReason());
      int[] all = concat(prompt, g.tokenIds());
      float[][] logProbs = fullForwardLogProbs(all);
      for (int i = 0; i < g.tokenIds().length; i++) {
        float[] row = logProbs[prompt.length - 1 + i];
        assertEquals(argMax(row), g.tokenIds()[i], "token " + i);
        assertEquals(row[g.tokenIds()[i]], g.logProbs()[i], 1e-5, "log-prob " + i);
      }
    }
  }

  @ParameterizedTest(name = "{0} sequences, batch of at most {1}, prefill chunk {2}, {3} matmul")
  @CsvSource({"7, 4, 4, TORCH", "13, 12, 64, TORCH", "13, 12, 64, VECTOR"})
  void batchedGenerationEqualsOneAtATimeWithTheSameSeeds(int count, int maxBatch, int chunk,
      Matmul matmul) throws Exception {
    List<int[]> prompts = new ArrayList<>();
    List<SamplingParams> params = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int[] p = new int[3 + 2 * i];
      for (int j = 0; j < p.length; j++) {
        p[j] = (7 * i + 3 * j + 1) % CONFIG.vocabSize();
      }
      prompts.add(p);
      // Different lengths make sequences leave at different steps; stop on token 0.
      params.add(new SamplingParams(i % 3 == 0 ? 1.0 : 0.7, i % 2 == 0 ? 1.0 : 0.9,
          i == 3 ? 5 : 0, 6 + 3 * i, 1000 + i, Set.of(0)));
    }
    List<Generation> alone = new ArrayList<>();
    try (GenerationEngine engine = new GenerationEngine(model,
        new GenerationEngine.Options(1, 4).withMatmul(matmul))) {
      for (int i = 0; i < prompts.size(); i++) {
        alone.add(engine.generate(prompts.get(i), params.get(i)));
      }
    }
    // More requests than maxBatch: later ones wait, then join while others are mid-sequence.
    // Blocks of 4 positions: sequences take new blocks mid-flight, several prompts share a step.
    try (GenerationEngine engine = new GenerationEngine(model,
        new GenerationEngine.Options(maxBatch, chunk).withKvBudget(1 << 20, 4)
            .withMatmul(matmul))) {
      List<CompletableFuture<Generation>> futures = new ArrayList<>();
      for (int i = 0; i < prompts.size(); i++) {
        futures.add(engine.submit(prompts.get(i), params.get(i)));
      }
      for (int i = 0; i < prompts.size(); i++) {
        Generation batched = futures.get(i).get();
        assertArrayEquals(alone.get(i).tokenIds(), batched.tokenIds(), "sequence " + i);
        // Bit for bit: a row's numerics do not depend on its batch.
        assertArrayEquals(alone.get(i).logProbs(), batched.logProbs(), "sequence " + i);
        assertEquals(alone.get(i).finishReason(), batched.finishReason());
      }
    }
    // The seeds matter: sampled sequences are not all the same.
    assertTrue(alone.stream().map(g -> java.util.Arrays.toString(g.tokenIds())).distinct()
        .count() > 3);
  }

  /**
   * One sequence decoded alone and beside 1, 3 and 7 others of other lengths records the same
   * bits. Alone it is prefilled in one piece in blocks of 16, and its keys pass 256 positions
   * (the attention's value chunk) while it decodes; beside the others it is prefilled in chunks
   * of 8 in blocks of 4, one other is longer (its keys padded to that one's, several chunks),
   * the rest shorter and leaving early, and the batch has 2, 4 or 8 rows.
   */
  @ParameterizedTest(name = "beside {0} others, {1} matmul")
  @CsvSource({"1, TORCH", "3, TORCH", "7, TORCH", "7, VECTOR"})
  void aSequenceRecordsTheSameBitsAloneAndBesideOthers(int others, Matmul matmul)
      throws Exception {
    int[] prompt = new int[245];
    for (int j = 0; j < prompt.length; j++) {
      prompt[j] = (5 * j + 2) % CONFIG.vocabSize();
    }
    SamplingParams params = new SamplingParams(0.8, 1.0, 0, 24, 77, Set.of());
    Generation alone;
    try (GenerationEngine engine = new GenerationEngine(model,
        new GenerationEngine.Options(1, 64).withMatmul(matmul))) {
      alone = engine.generate(prompt, params);
    }
    try (GenerationEngine engine = new GenerationEngine(model,
        new GenerationEngine.Options(8, 8).withKvBudget(1 << 20, 4).withMatmul(matmul))) {
      List<CompletableFuture<Generation>> rest = new ArrayList<>();
      for (int k = 0; k < others; k++) {
        int[] p = new int[k == 0 ? 280 : 3 + 11 * k];
        for (int j = 0; j < p.length; j++) {
          p[j] = (3 * j + k + 1) % CONFIG.vocabSize();
        }
        rest.add(engine.submit(p, new SamplingParams(1.0, 1.0, 0, 4 + 9 * k, k, Set.of())));
      }
      Generation beside = engine.submit(prompt, params).get();
      for (CompletableFuture<Generation> f : rest) {
        f.get();
      }
      assertArrayEquals(alone.tokenIds(), beside.tokenIds());
      assertArrayEquals(alone.logProbs(), beside.logProbs());
    }
  }

  @Test
  void generationStopsAfterAStopTokenAndReturnsIt() {
    int[] prompt = {3, 1, 4, 1, 5};
    try (GenerationEngine engine = new GenerationEngine(model, GenerationEngine.Options
        .defaults())) {
      Generation free = engine.generate(prompt, SamplingParams.greedy(8, Set.of()));
      int stop = free.tokenIds()[2];
      int firstAt = 0;
      while (free.tokenIds()[firstAt] != stop) {
        firstAt++;
      }
      Generation stopped = engine.generate(prompt, SamplingParams.greedy(8, Set.of(stop)));
      assertEquals(Generation.FinishReason.STOP, stopped.finishReason());
      assertEquals(firstAt + 1, stopped.tokenIds().length);
      assertEquals(stop, stopped.tokenIds()[firstAt]);
    }
  }

  @Test
  void aPromptTokenOutsideTheVocabularyIsRejectedBeforeItReachesTheBatch() {
    try (GenerationEngine engine = new GenerationEngine(model, GenerationEngine.Options
        .defaults())) {
      var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
          () -> engine.submit(new int[] {1, 64}, SamplingParams.greedy(2, Set.of())));
      assertTrue(e.getMessage().contains("64") && e.getMessage().contains("vocabulary"));
      assertEquals(2, engine.generate(new int[] {1, 2}, SamplingParams.greedy(2, Set.of()))
          .tokenIds().length);
    }
  }

  private static float[][] fullForwardLogProbs(int[] tokens) {
    try (NDManager work = model.newWorkManager()) {
      long[] ids = java.util.Arrays.stream(tokens).asLongStream().toArray();
      NDArray lp = model.forward(work.create(ids, new Shape(1, ids.length))).logSoftmax(2);
      float[] flat = lp.toFloatArray();
      int v = CONFIG.vocabSize();
      float[][] out = new float[tokens.length][];
      for (int t = 0; t < tokens.length; t++) {
        out[t] = java.util.Arrays.copyOfRange(flat, t * v, (t + 1) * v);
      }
      return out;
    }
  }

  static arbor.policy.files.HostTensor scaled(arbor.policy.files.HostTensor t, float f) {
    float[] v = t.values().clone();
    for (int i = 0; i < v.length; i++) {
      v[i] *= f;
    }
    return new arbor.policy.files.HostTensor(t.name(), t.dtype(), t.shape(), v);
  }

  private static int argMax(float[] row) {
    int best = 0;
    for (int i = 1; i < row.length; i++) {
      if (row[i] > row[best]) {
        best = i;
      }
    }
    return best;
  }

  private static int[] concat(int[] a, int[] b) {
    int[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

}
