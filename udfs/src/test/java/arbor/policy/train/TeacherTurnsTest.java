package arbor.policy.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.Device;
import arbor.policy.files.ChatMessage;
import arbor.policy.files.TensorDtype;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.PolicyModel;
import arbor.policy.model.TinyModels;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TeacherTurnsTest {

  @Test
  void aTeacherTurnBecomesTheStudentsPromptAndTheTeachersTextEndedByTheStudentsStopToken(@TempDir Path dir) throws Exception {
    TinyModels.write(ModelConfig.qwen3(300, 32, 64, 1, 4, 2, 8, false), 1,
        new TinyModels.TokenizerSource.ByteLevel(), TensorDtype.F32, dir);
    try (PolicyModel student = HfModelFolder.load(dir, Device.cpu())) {
      List<ChatMessage> messages = List.of(ChatMessage.system("You read papers."), ChatMessage.user("Find the data."));
      ResponseSample s = new TeacherTurns(student).render(messages, "```repl\nprint(1)\n```");

      // The prompt is what generation would have used for the same conversation.
      assertArrayEquals(student.promptIds(messages), s.promptIds());
      int[] ids = s.responseIds();
      int stop = student.tokenizer().tokenId(student.chat().stopTokens().getFirst());
      assertEquals(stop, ids[ids.length - 1]);
      assertEquals("```repl\nprint(1)\n```", student.tokenizer().decode(Arrays.copyOf(ids, ids.length - 1)));
    }
  }
}
