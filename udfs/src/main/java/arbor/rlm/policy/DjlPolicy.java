package arbor.rlm.policy;

import ai.djl.Device;
import arbor.conf.DjlPolicySettings;
import arbor.policy.files.ChatMessage;
import arbor.policy.generate.ChatGenerator;
import arbor.policy.generate.ChatTurn;
import arbor.policy.generate.GenerationEngine;
import arbor.policy.generate.SamplingParams;
import arbor.policy.kernels.TorchThreads;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.PolicyModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The trainable policy: the model's chat format renders the node's conversation, the shared
 * generation engine samples the turn, and the {@link Generation} keeps exactly the prompt ids the
 * model was conditioned on, the ids it produced (the stop token included: the model must learn to
 * emit it) and their log-probabilities under softmax(logits / temperature): one training sample.
 *
 * <p>{@code llm_query} completions use the same model with a one-message conversation.
 * Thread-safe: the nodes of many trees call it at once and the engine batches them.
 */
public final class DjlPolicy implements Policy, AutoCloseable {

  private final ChatGenerator generator;
  private final DjlPolicySettings.Sampling sampling;
  private final long seed;
  private final AtomicLong requests = new AtomicLong();
  private final List<AutoCloseable> owned;

  /**
   * A policy over a model and engine someone else owns (e.g. a {@code ModelHolder} lease).
   */
  public DjlPolicy(ChatGenerator generator, DjlPolicySettings.Sampling sampling, long seed) {
    this(generator, sampling, seed, List.of());
  }

  private DjlPolicy(ChatGenerator generator, DjlPolicySettings.Sampling sampling, long seed,
      List<AutoCloseable> owned) {
    // Checked once here rather than on the first turn of some node deep in a run.
    new SamplingParams(sampling.temperature(), sampling.topP(), sampling.topK(),
        sampling.maxNewTokens(), seed, Set.of());
    this.generator = generator;
    this.sampling = sampling;
    this.seed = seed;
    this.owned = owned;
  }

  /**
   * Loads the HF folder {@code modelDir} on the CPU with its own engine; closing the policy frees
   * both.
   */
  public static DjlPolicy open(Path modelDir, DjlPolicySettings settings) throws IOException {
    if (!Files.isRegularFile(modelDir.resolve(HfModelFolder.CONFIG))) {
      throw new IOException("djl policy: " + modelDir + " is not a Hugging Face model folder (no "
          + HfModelFolder.CONFIG + "); set policy.djl.model_dir or pass --model DIR");
    }
    TorchThreads.configure(settings.torchThreads());
    PolicyModel model = HfModelFolder.load(modelDir, Device.cpu());
    GenerationEngine engine;
    try {
      engine = new GenerationEngine(model.model(), GenerationEngine.Options.of(settings.engine()));
    } catch (RuntimeException e) {
      model.close();
      throw e;
    }
    // Engine first: it must stop using the weights before they are freed.
    return new DjlPolicy(new ChatGenerator(model, engine), settings.sampling(), settings.seed(),
        List.of(engine, model));
  }

  /** Samples the turn with the call's seed: the same call gives the same tokens, whatever else runs. */
  @Override
  public Generation generate(PolicyCall call) throws PolicyException {
    ChatTurn turn = run(call.messages(), call.node() + " turn " + call.turn(), params(call.seed(), call.maxNewTokens()));
    Generation.Finish finish = turn.finishReason() == arbor.policy.generate.Generation.FinishReason.LENGTH
        ? Generation.Finish.LENGTH : Generation.Finish.STOP;
    return new Generation(turn.text(), turn.promptIds(), turn.responseIds(), turn.logProbs(), finish,
        new Generation.Sampling(sampling.temperature(), sampling.topP(), sampling.topK()));
  }

  @Override
  public String complete(NodePath node, String prompt) throws PolicyException {
    return complete(node, prompt, mix(seed ^ mix(requests.getAndIncrement() + 0x9E3779B97F4A7C15L)));
  }

  @Override
  public String complete(NodePath node, String prompt, long seed) throws PolicyException {
    return complete(node, prompt, seed, Integer.MAX_VALUE).text();
  }

  @Override
  public Generation complete(NodePath node, String prompt, long seed, int maxNewTokens) throws PolicyException {
    ChatTurn turn = run(List.of(ChatMessage.user(prompt)), node + " llm_query", params(seed, maxNewTokens));
    Generation.Finish finish = turn.finishReason() == arbor.policy.generate.Generation.FinishReason.LENGTH
        ? Generation.Finish.LENGTH : Generation.Finish.STOP;
    return new Generation(turn.text(), null, turn.responseIds(), null, finish,
        new Generation.Sampling(sampling.temperature(), sampling.topP(), sampling.topK()));
  }

  private ChatTurn run(List<ChatMessage> messages, String who, SamplingParams params) throws PolicyException {
    CompletableFuture<ChatTurn> future;
    try {
      future = generator.complete(messages, params);
    } catch (IllegalArgumentException | IllegalStateException e) {
      // Prompt longer than the model's positions, or the engine is closed.
      throw new PolicyException("djl policy could not generate for " + who + ": "
          + e.getMessage(), e);
    }
    try {
      return future.get();
    } catch (InterruptedException e) {
      // The node was stopped (budget, cancellation): the engine drops the sequence.
      future.cancel(false);
      Thread.currentThread().interrupt();
      throw new PolicyException("djl policy: " + who + " was interrupted while generating", e);
    } catch (ExecutionException e) {
      throw new PolicyException("djl policy: generation failed for " + who + ": "
          + e.getCause(), e.getCause());
    }
  }

  private SamplingParams params(long seed, int maxNewTokens) {
    return new SamplingParams(sampling.temperature(), sampling.topP(), sampling.topK(),
        Math.min(sampling.maxNewTokens(), maxNewTokens), seed, Set.of());
  }

  /** SplitMix64's finaliser: nearby inputs give unrelated seeds. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  @Override
  public void close() throws Exception {
    Exception first = null;
    for (AutoCloseable c : owned) {
      try {
        c.close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
