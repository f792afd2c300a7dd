package arbor.policy.generate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChatGeneratorTest {

  @TempDir Path dir;

  @Test
  void aTurnRecordsThePromptTheModelSawAndItsOwnTokens() throws Exception {
    ModelConfig c = ModelConfig.qwen3(300, 32, 64, 2, 4, 2, 8, true);
    TinyModels.write(c, 4, new TinyModels.TokenizerSource.ByteLevel(), TensorDtype.F32, dir);
    List<ChatMessage> messages = List.of(ChatMessage.system("Be brief."),
        ChatMessage.user("Say hi"));
    try (PolicyModel policy = HfModelFolder.load(dir, Device.cpu());
        GenerationEngine engine = new GenerationEngine(policy.model(),
            GenerationEngine.Options.defaults())) {
      ChatTurn turn = new ChatGenerator(policy, engine)
          .complete(messages, new SamplingParams(1.0, 1.0, 0, 12, 5, Set.of())).get();
      String rendered = policy.chat().render(messages, true);
      assertTrue(rendered.endsWith("<|im_start|>assistant\n<think>\n\n</think>\n\n"));
      assertArrayEquals(policy.tokenizer().encode(rendered), turn.promptIds());
      assertEquals(turn.responseIds().length, turn.logProbs().length);
      int kept = turn.finishReason() == Generation.FinishReason.STOP
          ? turn.responseIds().length - 1 : turn.responseIds().length;
      assertEquals(policy.tokenizer().decode(java.util.Arrays.copyOf(turn.responseIds(), kept)),
          turn.text());
      // Every id a stop token: the turn ends on its first token, which the text leaves out.
      Set<Integer> everything = new java.util.HashSet<>();
      for (int i = 0; i < c.vocabSize(); i++) {
        everything.add(i);
      }
      ChatTurn stopped = new ChatGenerator(policy, engine)
          .complete(messages, new SamplingParams(1.0, 1.0, 0, 12, 5, everything)).get();
      assertEquals(Generation.FinishReason.STOP, stopped.finishReason());
      assertEquals(1, stopped.responseIds().length);
      assertEquals("", stopped.text());
      // <|im_end|> always stops a turn, whatever the caller passed.
      assertTrue(policy.stopTokenIds().contains(policy.tokenizer().tokenId("<|im_end|>")));
    }
  }
}
