package arbor.policy.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import arbor.policy.kernels.TorchScalar;
import arbor.policy.model.Qwen3Model;
import java.util.List;

/**
 * The learner's forward pass: log-probabilities (and entropies) of given response tokens under
 * the policy. Three ways, one batch layout:
 *
 * <ul>
 *   <li>{@link #score}: one differentiable graph (inside a {@code GradientCollector} on a
 *       trainable model). Simple, and the reference the others are tested against, but autograd
 *       keeps every layer's (heads x T x T) attention probabilities.
 *   <li>{@link #scoreFrozen}: no autograd, attention a query block at a time: memory linear in
 *       T (the reference policy, evaluation).
 *   <li>{@link #train}: forward and backward with per-layer recomputation
 *       ({@link RecomputingPass}): memory linear in T; the loss is the caller's function of the
 *       log-probabilities and its gradient lands on the model's weights.
 * </ul>
 *
 * <p>All three send only response positions through the LM head (the largest matmul, and the
 * vocabulary-wide log-softmax). The distribution is softmax(logits / temperature), the same one
 * the generation engine records, so PPO's ratio starts at 1 for the weights that generated the
 * samples.
 */
public final class PolicyForward {

  /** The loss of a micro-batch from its response log-probabilities (B, R) and mask (B, R). */
  @FunctionalInterface
  public interface TokenLoss {
    /** A scalar computed from {@code logProbs} (differentiable) and {@code mask}. */
    NDArray apply(NDArray logProbs, NDArray mask);
  }

  /** What {@link #train} computed: detached per-token results and the loss value. */
  public record Trained(ResponseLogProbs tokens, double loss) {}

  /** Query rows per attention block when none is given: a few MB of scores per head at 8k. */
  public static final int DEFAULT_ATTENTION_CHUNK = 256;

  private final Qwen3Model model;
  private final double temperature;
  private final RecomputingPass pass;

  public PolicyForward(Qwen3Model model, double temperature) {
    this(model, temperature, DEFAULT_ATTENTION_CHUNK);
  }

  public PolicyForward(Qwen3Model model, double temperature, int attentionChunk) {
    if (!(temperature > 0)) {
      throw new IllegalArgumentException("training temperature must be > 0, got " + temperature
          + " (use 1.0 for greedy-generated samples)");
    }
    this.model = model;
    this.temperature = temperature;
    this.pass = new RecomputingPass(model, attentionChunk);
  }

  /**
   * Scores one micro-batch in one autograd graph: each sample is prompt + response,
   * right-padded to the longest.
   */
  public ResponseLogProbs score(NDManager work, List<ResponseSample> batch) {
    Layout l = Layout.of(batch);
    NDArray ids = work.create(l.tokens, new Shape(l.b, l.t));
    NDArray hidden = model.hidden(ids, l.positions(), new Qwen3Model.CausalSource(work, l.t));
    NDArray[] lp = head(work, hidden, l);
    return new ResponseLogProbs(lp[0], entropy(lp[1], l), l.mask(work));
  }

  /** Scores one micro-batch with autograd off and memory linear in the sequence length. */
  public ResponseLogProbs scoreFrozen(NDManager work, List<ResponseSample> batch) {
    Layout l = Layout.of(batch);
    try (Autograd.Scope off = Autograd.off()) {
      NDArray ids = work.create(l.tokens, new Shape(l.b, l.t));
      NDArray last = pass.forward(ids, l.positions(), false).output();
      NDArray[] lp = head(work, model.finalNorm(last), l);
      return new ResponseLogProbs(lp[0], entropy(lp[1], l), l.mask(work));
    }
  }

  /**
   * Forward, {@code loss}, and backward into the weights' gradients (which accumulate across
   * calls: one call per micro-batch, then one optimizer step). The model must be trainable.
   */
  public Trained train(NDManager work, List<ResponseSample> batch, TokenLoss loss) {
    Layout l = Layout.of(batch);
    NDArray ids = work.create(l.tokens, new Shape(l.b, l.t));
    RecomputingPass.Saved saved = pass.forward(ids, l.positions(), true);
    NDArray last = Autograd.leaf(saved.output());
    NDArray mask = l.mask(work);
    NDArray value;
    NDArray[] lp;
    try (Autograd.Scope on = Autograd.on()) {
      lp = head(work, model.finalNorm(last), l);
      value = loss.apply(lp[0], mask);
    }
    if (value.getShape().dimension() != 0 && value.size() != 1) {
      throw new IllegalArgumentException("the micro-batch loss must be a scalar, got shape "
          + value.getShape());
    }
    Autograd.backward(value, work.ones(value.getShape()));
    pass.backward(saved, last.getGradient());
    try (Autograd.Scope off = Autograd.off()) {
      ResponseLogProbs out = new ResponseLogProbs(lp[0].stopGradient(), entropy(lp[1], l), mask);
      return new Trained(out, value.getFloat());
    }
  }

  /**
   * LM head at response positions only: normalised hidden states (B, T, hidden) ->
   * {token log-probs (B, R), full log-probs (B * R, V)}.
   */
  private NDArray[] head(NDManager work, NDArray hidden, Layout l) {
    long width = hidden.getShape().get(2);
    NDArray picked = hidden.reshape(l.b * l.t, width)
        .get(new NDIndex("{}", work.create(l.pick)));                  // (B*R, hidden)
    NDArray logits = model.logits(picked);
    NDArray logp = logits.div(TorchScalar.like(logits, temperature)).logSoftmax(1); // (B*R, V)
    NDArray token = logp.gather(work.create(l.targets, new Shape(l.b * l.r, 1)), 1)
        .reshape(l.b, l.r);                                              // (B, R)
    return new NDArray[] {token, logp};
  }

  /** Entropy per response token (B, R); differentiable only when autograd is on. */
  private static NDArray entropy(NDArray logp, Layout l) {
    return logp.exp().mul(logp).sum(new int[] {1}).neg().reshape(l.b, l.r);
  }

  /**
   * Right-padded token ids (B, T), and for every response token j of sample i the flat
   * position that predicts it (i * T + P_i - 1 + j) and its id; padding picks position i * T
   * and is masked out.
   */
  private record Layout(int b, int t, int r, long[] tokens, long[] pick, long[] targets,
      float[] maskValues) {

    static Layout of(List<ResponseSample> batch) {
      if (batch.isEmpty()) {
        throw new IllegalArgumentException("a micro-batch needs at least one sample");
      }
      int b = batch.size();
      int t = batch.stream().mapToInt(ResponseSample::length).max().orElseThrow();
      int r = batch.stream().mapToInt(s -> s.responseIds().length).max().orElseThrow();
      long[] tokens = new long[b * t];
      long[] pick = new long[b * r];
      long[] targets = new long[b * r];
      float[] mask = new float[b * r];
      for (int i = 0; i < b; i++) {
        ResponseSample s = batch.get(i);
        int p = s.promptIds().length;
        for (int j = 0; j < p; j++) {
          tokens[i * t + j] = s.promptIds()[j];
        }
        for (int j = 0; j < s.responseIds().length; j++) {
          tokens[i * t + p + j] = s.responseIds()[j];
        }
        for (int j = 0; j < r; j++) {
          boolean real = j < s.responseIds().length;
          pick[i * r + j] = (long) i * t + (real ? p - 1 + j : 0);
          targets[i * r + j] = real ? s.responseIds()[j] : 0;
          mask[i * r + j] = real ? 1f : 0f;
        }
      }
      return new Layout(b, t, r, tokens, pick, targets, mask);
    }

    long[] positions() {
      long[] p = new long[b * t];
      for (int i = 0; i < p.length; i++) {
        p[i] = i % t;
      }
      return p;
    }

    NDArray mask(NDManager work) {
      return work.create(maskValues, new Shape(b, r));
    }
  }
}
