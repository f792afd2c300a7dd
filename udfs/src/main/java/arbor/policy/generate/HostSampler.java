package arbor.policy.generate;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import arbor.policy.kernels.Exp;
import arbor.policy.kernels.Parallel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Sampler}'s draws computed in Java, for logits the vector kernels made in Java anyway:
 * a dozen libtorch passes over the whole (batch, vocabulary) array, one of them a float64
 * cumulative sum, took a fifth of a batch-32 decode step on one thread. Greedy and plain rows
 * are drawn here, rows shared over the kernels' threads; rows with top-k or top-p go to
 * {@link Sampler} (they sort the vocabulary, and rollouts' defaults use neither).
 *
 * <p>The rules are Sampler's: one uniform per non-greedy row from its own generator, the first
 * token whose cumulative probability in vocabulary order reaches it, the log-probability under
 * softmax(logits / temperature). A row's draw depends on its logits, params and generator only:
 * every sum runs in vocabulary order and the exponential is {@link Exp}.
 */
final class HostSampler {

  private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
  private static final int L = S.length();

  private HostSampler() {}

  /**
   * One draw per row of {@code all} (n, vocab), with row i's params and generator; rows for
   * libtorch's sampler are copied into {@code work}.
   */
  static Sampler.Draw[] sample(float[] all, int vocab, List<SamplingParams> params,
      List<SplittableRandom> rngs, Parallel threads, NDManager work) {
    int n = params.size();
    double[] uniforms = new double[n];
    List<Integer> truncated = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      SamplingParams p = params.get(i);
      if (p.truncates()) {
        truncated.add(i);
      } else {
        uniforms[i] = p.temperature() == 0 ? Double.NaN : rngs.get(i).nextDouble();
      }
    }
    Sampler.Draw[] out = new Sampler.Draw[n];
    threads.forEach(n, i -> {
      if (!params.get(i).truncates()) {
        out[i] = draw(all, i * vocab, vocab, params.get(i).temperature(), uniforms[i]);
      }
    });
    if (!truncated.isEmpty()) {
      float[] rows = new float[truncated.size() * vocab];
      for (int j = 0; j < truncated.size(); j++) {
        System.arraycopy(all, truncated.get(j) * vocab, rows, j * vocab, vocab);
      }
      List<SamplingParams> p = truncated.stream().map(params::get).toList();
      List<SplittableRandom> r = truncated.stream().map(rngs::get).toList();
      Sampler.Draw[] drawn = Sampler.sample(
          work.create(rows, new Shape(truncated.size(), vocab)), p, r);
      for (int j = 0; j < drawn.length; j++) {
        out[truncated.get(j)] = drawn[j];
      }
    }
    return out;
  }

  /**
   * The row at {@code from} in {@code all}: greedy (argmax, first of ties) when {@code u} is
   * NaN, else the inverse-CDF draw of {@code u}.
   */
  static Sampler.Draw draw(float[] all, int from, int vocab, double temperature, double u) {
    float inverse = (float) (temperature == 0 ? 1.0 : 1.0 / temperature);
    float[] w = new float[vocab];
    int whole = vocab / L * L;
    FloatVector maxes = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
    for (int j = 0; j < whole; j += L) {
      FloatVector z = FloatVector.fromArray(S, all, from + j).mul(inverse);
      z.intoArray(w, j);
      maxes = maxes.max(z);
    }
    float max = maxes.reduceLanes(VectorOperators.MAX);
    for (int j = whole; j < vocab; j++) {
      w[j] = all[from + j] * inverse;
      max = Math.max(max, w[j]);
    }
    if (!Float.isFinite(max)) {
      throw new IllegalStateException("the logits of row " + from / vocab + " are not finite (max "
          + max + "): the model's weights or activations have diverged");
    }
    int argMax = -1;
    if (Double.isNaN(u)) {
      for (int j = 0; argMax < 0; j++) {
        if (w[j] == max) {
          argMax = j;
        }
      }
    }
    float chosenScore = argMax >= 0 ? w[argMax] : 0f;
    for (int j = 0; j < whole; j += L) {
      Exp.of(FloatVector.fromArray(S, w, j).sub(max)).intoArray(w, j);
    }
    for (int j = whole; j < vocab; j++) {
      w[j] = Exp.of(w[j] - max);
    }
    double total = 0;
    for (int j = 0; j < vocab; j++) {
      total += w[j];
    }
    int token = argMax;
    if (token < 0) {
      // The same sum as total's, stopped early: it reaches u * total (< total) by the last token.
      double target = u * total;
      double acc = 0;
      token = vocab - 1;
      for (int j = 0; j < vocab; j++) {
        acc += w[j];
        if (acc >= target) {
          token = j;
          break;
        }
      }
      chosenScore = all[from + token] * inverse;
    }
    return new Sampler.Draw(token, (float) (chosenScore - max - Math.log(total)));
  }
}
