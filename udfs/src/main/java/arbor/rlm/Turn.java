package arbor.rlm;

import arbor.rlm.policy.ChatMessage;
import java.util.List;

/**
 * One turn of a node, exactly as it happened: the conversation the policy was given, what it
 * generated (text, and token ids with log-probabilities when the policy has them), the code
 * that ran, and the observation that came back.
 *
 * @param replError whether any executed cell raised, timed out or lost its sandbox
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
    long execMillis) {

  public Turn {
    prompt = List.copyOf(prompt);
    code = List.copyOf(code);
  }
}
