package arbor.policy.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import arbor.policy.files.ChatMessage;
import arbor.policy.files.TensorDtype;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.PolicyModel;
import arbor.policy.model.TinyModels;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cancelled request leaves the engine at once: no tokens are generated for nobody. */
class GenerationCancelTest {
  @TempDir Path dir;

  @Test
  void cancellingATurnStopsItsSequenceAndTheEngineGoesOnServingOthers() throws Exception {
    TinyModels.write(ModelConfig.qwen3(300, 32, 64, 2, 4, 2, 8, true), 9,
        new TinyModels.TokenizerSource.ByteLevel(), TensorDtype.F32, dir);
    try (PolicyModel policy = HfModelFolder.load(dir, Device.cpu());
        GenerationEngine engine = new GenerationEngine(policy.model(),
            GenerationEngine.Options.defaults())) {
      ChatGenerator chat = new ChatGenerator(policy, engine);
      List<ChatMessage> hi = List.of(ChatMessage.user("hi"));
      // 30,000 tokens would take minutes: only cancellation ends it soon.
      CompletableFuture<ChatTurn> endless = chat.complete(hi,
          new SamplingParams(1.0, 1.0, 0, 30_000, 1, Set.of()));
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (engine.stats().decodeTokens() < 20 && !endless.isDone()
          && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      // Seeded: this sequence draws no stop token in its first tokens (else pick another seed).
      assertTrue(!endless.isDone(), "the sequence stopped by itself; pick another seed");
      endless.cancel(false);
      Thread.sleep(200);
      long steps = engine.stats().decodeSteps();
      Thread.sleep(300);
      assertEquals(steps, engine.stats().decodeSteps(), "the engine kept decoding after cancel");
      ChatTurn next = chat.complete(hi, new SamplingParams(1.0, 1.0, 0, 5, 2, Set.of())).get();
      assertTrue(next.responseIds().length >= 1 && next.responseIds().length <= 5);
    }
  }
}
