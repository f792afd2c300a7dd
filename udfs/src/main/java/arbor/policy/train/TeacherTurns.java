package arbor.policy.train;

import arbor.policy.files.ChatMessage;
import arbor.policy.model.PolicyModel;
import java.util.Arrays;
import java.util.List;

/**
 * Renders a teacher's turn (a conversation and the text the teacher answered) as a training
 * sample of the student: the prompt is exactly what the student would be conditioned on in the
 * same situation (its own chat format, ending with its generation prompt), the response is the
 * teacher's text in the student's tokens followed by the student's end-of-turn token, which the
 * student must learn to emit.
 */
public final class TeacherTurns {
  private final PolicyModel student;
  private final int endOfTurn;

  public TeacherTurns(PolicyModel student) {
    List<String> stops = student.chat().stopTokens();
    if (stops.isEmpty()) {
      throw new IllegalArgumentException("the student's chat format has no end-of-turn token;"
          + " SFT needs one to teach the model where a turn ends");
    }
    this.student = student;
    this.endOfTurn = student.tokenizer().tokenId(stops.getFirst());
  }

  public ResponseSample render(List<ChatMessage> messages, String response) {
    int[] prompt = student.promptIds(messages);
    int[] text = student.tokenizer().encode(response);
    int[] ids = Arrays.copyOf(text, text.length + 1);
    ids[text.length] = endOfTurn;
    return new ResponseSample(prompt, ids);
  }
}
