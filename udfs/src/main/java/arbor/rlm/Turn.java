package arbor.rlm;

import arbor.policy.files.ChatMessage;
import arbor.rlm.policy.Generation;
import java.util.List;

/**
 * One turn of a node, exactly as it happened: the conversation the policy was given, what it
 * generated (text, and token ids with log-probabilities when the policy has them), why the
 * response ended, how and with which seed it was sampled, the code that ran, and the observation
 * that came back.
 *
 * @param replError whether any executed cell raised, timed out or lost its sandbox
 * @param finish why the response ended ({@code cancelled}: the node was stopped while generating,
 *     and the turn has no response)
 * @param seed the turn's sampling seed ({@link TreeSeed#turn})
 */
public record Turn(
    int index,
    List<ChatMessage> prompt,
    String response,
    int[] promptTokenIds,
    int[] responseTokenIds,
    float[] logprobs,
    List<String> code,
    String observation,
    boolean replError,
    long genMillis,
    long execMillis,
    Generation.Finish finish,
    Generation.Sampling sampling,
    long seed) {

  public Turn {
    prompt = List.copyOf(prompt);
    code = List.copyOf(code);
  }

  /** Whether {@code max_new_tokens} (or the tree's remaining budget) cut the response. */
  public boolean truncated() {
    return finish == Generation.Finish.LENGTH;
  }
}
