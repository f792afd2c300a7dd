package arbor.policy.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import arbor.policy.model.Qwen3Model;
import java.util.List;

/**
 * The learner's forward pass: log-probabilities (and entropies) of given response tokens under
 * the policy, with autograd when called inside a {@code GradientCollector} on a trainable model.
 *
 * <p>The distribution is softmax(logits / temperature), the same one the generation engine
 * records, so PPO's ratio starts at exactly 1 for the weights that generated the samples.
 */
public final class PolicyForward {

  private final Qwen3Model model;
  private final double temperature;

  public PolicyForward(Qwen3Model model, double temperature) {
    if (!(temperature > 0)) {
      throw new IllegalArgumentException("training temperature must be > 0, got " + temperature
          + " (use 1.0 for greedy-generated samples)");
    }
    this.model = model;
    this.temperature = temperature;
  }

  /**
   * Scores one micro-batch: each sample is prompt + response, right-padded to the longest. Only
   * positions from the earliest response start are sent through the LM head, since prompts are
   * usually much longer than responses and the head is the largest matmul.
   */
  public ResponseLogProbs score(NDManager work, List<ResponseSample> batch) {
    int b = batch.size();
    int t = batch.stream().mapToInt(ResponseSample::length).max().orElseThrow();
    int r = batch.stream().mapToInt(s -> s.responseIds().length).max().orElseThrow();
    int from = batch.stream().mapToInt(s -> s.promptIds().length - 1).min().orElseThrow();
    int span = t - 1 - from;  // positions from..t-2 predict tokens from+1..t-1
    long[] tokens = new long[b * t];
    long[] targets = new long[b * span];
    // gather index: for sample i, response token j is predicted at position P_i - 1 + j.
    long[] pick = new long[b * r];
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
      for (int k = 0; k < span; k++) {
        targets[i * span + k] = tokens[i * t + from + k + 1];
      }
      for (int j = 0; j < r; j++) {
        boolean real = j < s.responseIds().length;
        pick[i * r + j] = real ? p - 1 + j - from : 0;
        mask[i * r + j] = real ? 1f : 0f;
      }
    }
    NDArray ids = work.create(tokens, new Shape(b, t));
    NDArray hidden = model.hidden(ids, positions(b, t), new Qwen3Model.CausalSource(work, t));
    NDArray h = hidden.get(new NDIndex(":, {}:{}, :", from, t - 1));        // (B, span, hidden)
    NDArray logp = model.logits(h).div(temperature).logSoftmax(2);          // (B, span, V)
    NDArray tokenLogp = logp.gather(work.create(targets, new Shape(b, span, 1)), 2)
        .squeeze(2);                                                        // (B, span)
    NDArray entropy = logp.exp().mul(logp).sum(new int[] {2}).neg();        // (B, span)
    NDArray index = work.create(pick, new Shape(b, r));
    return new ResponseLogProbs(tokenLogp.gather(index, 1), entropy.gather(index, 1),
        work.create(mask, new Shape(b, r)));
  }

  private static long[] positions(int b, int t) {
    long[] p = new long[b * t];
    for (int i = 0; i < p.length; i++) {
      p[i] = i % t;
    }
    return p;
  }
}
