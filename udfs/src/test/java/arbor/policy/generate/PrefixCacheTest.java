package arbor.policy.generate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import arbor.conf.DjlPolicySettings.Matmul;
import arbor.policy.files.TensorDtype;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.Qwen3Model;
import arbor.policy.model.ScratchModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The engine's KV memory: prefix reuse, model versions, a budget that forces preemption. */
class PrefixCacheTest {

  private static final ModelConfig CONFIG = ModelConfig.qwen3(64, 32, 64, 2, 4, 2, 8, false);
  private static Qwen3Model model;

  @BeforeAll
  static void load() {
    var weights = ScratchModel.weights(CONFIG, 7, TensorDtype.F32).stream()
        .map(t -> t.name().endsWith("norm.weight") ? t : GenerationEngineTest.scaled(t, 5f))
        .collect(Collectors.toMap(t -> t.name(), t -> t));
    model = Qwen3Model.create(CONFIG, weights, Device.cpu());
  }

  @AfterAll
  static void close() {
    model.close();
  }

  /**
   * An RLM-like workload: a shared system prompt, two nodes of three turns each (every turn
   * extends the previous one's prompt), and four samples of one query submitted together.
   */
  private static List<List<int[]>> workload() {
    int[] system = range(1, 37);
    List<List<int[]>> waves = new ArrayList<>();
    List<int[]> turns = new ArrayList<>();
    for (int node = 0; node < 2; node++) {
      int[] prompt = concat(system, range(40 + node, 9));
      for (int turn = 0; turn < 3; turn++) {
        prompt = concat(prompt, range(3 * turn + node, 7 + turn));
        turns.add(prompt);
      }
    }
    waves.add(turns.subList(0, 3));
    waves.add(turns.subList(3, 6));
    List<int[]> samples = new ArrayList<>();
    for (int g = 0; g < 4; g++) {
      samples.add(concat(system, range(50, 21)));
    }
    waves.add(samples);
    return waves;
  }

  private static List<Generation> run(GenerationEngine engine, List<List<int[]>> waves) {
    List<Generation> out = new ArrayList<>();
    int seed = 0;
    for (List<int[]> wave : waves) {
      if (wave.size() == 3) {
        for (int[] prompt : wave) {  // a node's turns: one after the other
          out.add(engine.generate(prompt, params(seed++)));
        }
      } else {  // samples of one query: all at once
        List<CompletableFuture<Generation>> fs = new ArrayList<>();
        for (int[] prompt : wave) {
          fs.add(engine.submit(prompt, params(seed++)));
        }
        fs.forEach(f -> out.add(f.join()));
      }
    }
    return out;
  }

  private static SamplingParams params(int seed) {
    return new SamplingParams(0.9, seed % 2 == 0 ? 1.0 : 0.9, 0, 12, 500 + seed, Set.of());
  }

  @ParameterizedTest(name = "{0} matmul")
  @EnumSource(value = Matmul.class, names = {"TORCH", "VECTOR"})
  void tokensAndLogProbsAreTheSameWithAndWithoutThePrefixCache(Matmul matmul) {
    List<Generation> plain;
    List<Generation> cached;
    GenerationEngine.Stats off;
    GenerationEngine.Stats on;
    var base = new GenerationEngine.Options(8, 16).withKvBudget(1 << 20, 4).withMatmul(matmul);
    try (GenerationEngine engine = new GenerationEngine(model, base.withPrefixCache(false))) {
      plain = run(engine, workload());
      off = engine.stats();
    }
    try (GenerationEngine engine = new GenerationEngine(model, base)) {
      cached = run(engine, workload());
      on = engine.stats();
    }
    for (int i = 0; i < plain.size(); i++) {
      assertArrayEquals(plain.get(i).tokenIds(), cached.get(i).tokenIds(), "generation " + i);
      // Bit for bit: cached keys and values are the bits prefill would compute again.
      assertArrayEquals(plain.get(i).logProbs(), cached.get(i).logProbs(), "generation " + i);
    }
    assertEquals(0, off.cachedTokens());
    assertEquals(off.promptTokens(), off.prefillTokens());
    assertEquals(on.promptTokens(), on.prefillTokens() + on.cachedTokens());
    // The samples arrive together: three of the four find the first one's prompt blocks (all
    // but the last, partial one) instead of computing them alongside it.
    assertTrue(on.cachedTokens() >= 3 * 56, "cached " + on.cachedTokens());
    assertTrue(on.prefillTokens() < off.prefillTokens() / 2,
        on.prefillTokens() + " vs " + off.prefillTokens());
  }

  @ParameterizedTest(name = "{0} matmul")
  @EnumSource(value = Matmul.class, names = {"TORCH", "VECTOR"})
  void aCachedPrefixIsNeverUsedWithChangedWeights(Matmul matmul) {
    int[] prompt = range(2, 40);
    SamplingParams greedy = SamplingParams.greedy(6, Set.of());
    NDArray w = model.parameters().get("model.layers.0.mlp.up_proj.weight");
    float[] before = w.toFloatArray();
    try (GenerationEngine engine = new GenerationEngine(model,
        new GenerationEngine.Options(4, 64).withKvBudget(1 << 20, 4).withMatmul(matmul))) {
      Generation first = engine.generate(prompt, greedy);
      GenerationEngine.Stats s0 = engine.stats();
      engine.generate(prompt, greedy);
      assertEquals(36, engine.stats().minus(s0).cachedTokens());
      // An optimizer step in place: same model object, other weights.
      w.muli(-3f);
      model.weightsChanged();
      GenerationEngine.Stats s1 = engine.stats();
      Generation changed = engine.generate(prompt, greedy);
      assertEquals(0, engine.stats().minus(s1).cachedTokens());
      try (GenerationEngine fresh = new GenerationEngine(model,
          new GenerationEngine.Options(4, 64).withKvBudget(1 << 20, 4).withMatmul(matmul))) {
        Generation expected = fresh.generate(prompt, greedy);
        assertArrayEquals(expected.tokenIds(), changed.tokenIds());
        assertArrayEquals(expected.logProbs(), changed.logProbs());
      }
      assertNotEquals(Arrays.toString(first.logProbs()), Arrays.toString(changed.logProbs()));
    } finally {
      w.set(before);
      model.weightsChanged();
    }
  }

  @ParameterizedTest(name = "{0} matmul")
  @EnumSource(value = Matmul.class, names = {"TORCH", "VECTOR"})
  void aBudgetTooSmallForAllPreemptsAndRecordsTheSameLogProbs(Matmul matmul) {
    List<int[]> prompts = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      prompts.add(range(5 * i + 1, 10 + 3 * i));
    }
    List<Generation> roomy = new ArrayList<>();
    try (GenerationEngine engine = new GenerationEngine(model,
        new GenerationEngine.Options(8, 32).withKvBudget(1 << 20, 4).withMatmul(matmul))) {
      for (int i = 0; i < prompts.size(); i++) {
        roomy.add(engine.generate(prompts.get(i), new SamplingParams(1.0, 1.0, 0, 30, i,
            Set.of())));
      }
    }
    // 15 blocks of 4 positions: room for the longest sequence (55 tokens), not for all six.
    long bytes = KvBlocks.bytesPerBlock(CONFIG, 4) * 16;
    try (GenerationEngine engine = new GenerationEngine(model,
        new GenerationEngine.Options(8, 32).withKvBudget(bytes, 4).withMatmul(matmul))) {
      List<CompletableFuture<Generation>> fs = new ArrayList<>();
      for (int i = 0; i < prompts.size(); i++) {
        fs.add(engine.submit(prompts.get(i), new SamplingParams(1.0, 1.0, 0, 30, i, Set.of())));
      }
      for (int i = 0; i < prompts.size(); i++) {
        Generation g = fs.get(i).join();
        assertArrayEquals(roomy.get(i).tokenIds(), g.tokenIds(), "sequence " + i);
        assertArrayEquals(roomy.get(i).logProbs(), g.logProbs(), "sequence " + i);
      }
      GenerationEngine.Stats s = engine.stats();
      assertTrue(s.preemptions() > 0, "no sequence was preempted");
      assertTrue(s.peakBlocks() <= s.totalBlocks());
      // A request that could never fit is refused at once, naming the budget.
      var e = assertThrows(IllegalArgumentException.class, () -> engine.submit(range(1, 40),
          new SamplingParams(1.0, 1.0, 0, 30, 0, Set.of())));
      assertTrue(e.getMessage().contains("kv_budget_mb"), e.getMessage());
    }
  }

  private static int[] range(int from, int length) {
    int[] r = new int[length];
    for (int i = 0; i < length; i++) {
      r[i] = (from + 7 * i) % CONFIG.vocabSize();
    }
    return r;
  }

  private static int[] concat(int[] a, int[] b) {
    int[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
