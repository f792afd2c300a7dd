package arbor.policy.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import arbor.policy.files.ChatMessage;
import arbor.policy.files.TensorDtype;
import arbor.policy.generate.ChatGenerator;
import arbor.policy.generate.ChatTurn;
import arbor.policy.generate.Generation;
import arbor.policy.generate.GenerationEngine;
import arbor.policy.generate.SamplingParams;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.PolicyModel;
import arbor.policy.model.TinyModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SFT actually teaches: a random tiny student with the byte-level tokenizer, trained on three
 * fixed teacher turns (each a different code block for a different question), reaches a low
 * per-token loss within a bounded number of epochs and then reproduces a teacher's turn by greedy
 * decoding, which it could not do before. A learner that does not learn fails both.
 */
class SftLearnsTest {

  /** 261 byte-level tokens, hidden 64, two layers, four heads of 16 (two KV heads), tied. */
  private static final ModelConfig CONFIG = ModelConfig.qwen3(261, 64, 128, 2, 4, 2, 16, true);
  private static final long SEED = 11;

  private static final String SYSTEM = "You answer with one repl block.";
  private static final List<String> QUESTIONS = List.of(
      "Find the dataset.", "Count the authors.", "Who funded it?");
  private static final List<String> ANSWERS = List.of(
      "```repl\nhits = search(context, question)\nprint(len(hits))\n```",
      "```repl\nnames = authors(context)\nprint(len(names))\n```",
      "```repl\nhits = search(context, \"grant\")\nprint(hits[:3])\n```");

  /**
   * Calibrated: the epoch loss starts near 5.2 (ln 261 = 5.56) and falls below 0.02 after 36-40
   * epochs for seeds 11-13 (one step per turn, lr 3e-3); at 0.3 (epoch 20) greedy decoding still
   * garbles a line, at 0.02 it reproduces all three turns exactly.
   */
  private static final double TARGET_LOSS = 0.02;
  private static final int MAX_EPOCHS = 100;

  @TempDir Path dir;

  private static List<ChatMessage> conversation(String question) {
    return List.of(ChatMessage.system(SYSTEM), ChatMessage.user(question));
  }

  private static ChatTurn greedy(PolicyModel policy, List<ChatMessage> messages)
      throws Exception {
    // A fresh engine per call: it reads the weights as they are now.
    try (GenerationEngine engine = new GenerationEngine(policy.model(),
        GenerationEngine.Options.defaults())) {
      return new ChatGenerator(policy, engine)
          .complete(messages, SamplingParams.greedy(96, Set.of())).get();
    }
  }

  @Test
  void sftOnTeacherTurnsDrivesTheLossDownAndGreedyDecodingReproducesTheCodeBlock()
      throws Exception {
    TinyModels.write(CONFIG, SEED, new TinyModels.TokenizerSource.ByteLevel(), TensorDtype.F32,
        dir);
    try (PolicyModel student = HfModelFolder.load(dir, Device.cpu())) {
      TeacherTurns turns = new TeacherTurns(student);
      List<ResponseSample> teacher = new ArrayList<>();
      for (int i = 0; i < QUESTIONS.size(); i++) {
        teacher.add(turns.render(conversation(QUESTIONS.get(i)), ANSWERS.get(i)));
      }

      for (int i = 0; i < QUESTIONS.size(); i++) {
        String before = greedy(student, conversation(QUESTIONS.get(i))).text();
        assertFalse(before.contains(ANSWERS.get(i)),
            "the untrained student already writes the block: " + before);
      }

      student.model().setTrainable(true);
      List<Double> losses = new ArrayList<>();
      // A budget below two samples' cost: one optimizer step per teacher turn.
      try (SftUpdate sft = new SftUpdate(student.model(),
          new AdamW.Hyper(3e-3, 0.0, 0.9, 0.999, 1e-8, 1.0), 200, 64)) {
        for (int e = 0; e < MAX_EPOCHS; e++) {
          SftUpdate.Epoch epoch = sft.epoch(teacher);
          losses.add(epoch.loss());
          if (epoch.loss() < TARGET_LOSS) {
            break;
          }
        }
      }
      student.model().setTrainable(false);
      double first = losses.getFirst();
      double last = losses.getLast();
      System.out.printf("SftLearnsTest: loss %.3f -> %.4f in %d epochs%n", first, last,
          losses.size());
      assertTrue(first > 4.5, "an untrained byte-level model starts near ln 261: " + first);
      assertTrue(last < TARGET_LOSS, "loss after " + losses.size() + " epochs: " + last
          + " (first " + first + ")");

      for (int i = 0; i < QUESTIONS.size(); i++) {
        ChatTurn after = greedy(student, conversation(QUESTIONS.get(i)));
        assertTrue(after.text().contains(ANSWERS.get(i)),
            "question " + i + " after SFT: " + after.text());
        assertEquals(ANSWERS.get(i), after.text(), "question " + i);
        assertEquals(Generation.FinishReason.STOP, after.finishReason(),
            "the student learned to end its turn");
      }
    }
  }
}
