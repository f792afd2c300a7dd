package arbor.policy.generate;

import arbor.policy.files.ChatMessage;
import arbor.policy.model.PolicyModel;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The DJL policy's one verb for the RLM runtime: a conversation in, the next assistant turn out.
 * The model's chat format renders the messages (ending with the generation prompt), the engine
 * samples until a stop token of the model (e.g. {@code <|im_end|>}) or the token limit.
 */
public final class ChatGenerator {

  private final PolicyModel policy;
  private final GenerationEngine engine;
  private final Set<Integer> stops;

  public ChatGenerator(PolicyModel policy, GenerationEngine engine) {
    this.policy = policy;
    this.engine = engine;
    this.stops = Set.copyOf(policy.stopTokenIds());
  }

  /**
   * Generates the next assistant turn. {@code sampling}'s stop ids are added to the model's own.
   * Cancelling the returned future stops the generation.
   */
  public CompletableFuture<ChatTurn> complete(List<ChatMessage> messages,
      SamplingParams sampling) {
    int[] prompt = policy.promptIds(messages);
    Set<Integer> allStops = new HashSet<>(stops);
    allStops.addAll(sampling.stopTokenIds());
    SamplingParams params = new SamplingParams(sampling.temperature(), sampling.topP(),
        sampling.topK(), sampling.maxNewTokens(), sampling.seed(), allStops);
    CompletableFuture<Generation> sequence = engine.submit(prompt, params);
    CompletableFuture<ChatTurn> turn = sequence.thenApply(g -> {
      int[] ids = g.tokenIds();
      int textLength = g.finishReason() == Generation.FinishReason.STOP ? ids.length - 1
          : ids.length;
      String text = policy.tokenizer().decode(Arrays.copyOf(ids, textLength));
      return new ChatTurn(prompt, ids, g.logProbs(), text, g.finishReason());
    });
    // Cancelling the turn cancels its sequence, so the engine stops generating for nobody.
    turn.whenComplete((t, e) -> {
      if (turn.isCancelled()) {
        sequence.cancel(false);
      }
    });
    return turn;
  }
}
