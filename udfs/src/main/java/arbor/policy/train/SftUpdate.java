package arbor.policy.train;

import ai.djl.ndarray.NDManager;
import arbor.policy.kernels.TorchScalar;
import arbor.policy.model.Qwen3Model;
import arbor.progress.Tally;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

/**
 * Supervised fine-tuning on a teacher's turns, Spark-free: cross-entropy on the response tokens
 * only (the prompt is context, never a target), one {@link AdamW} step per micro-batch packed by
 * {@link MicroBatches.TokenCost}, the memory-linear forward of {@link PolicyForward#train}. No
 * reference model: imitation has no KL term.
 *
 * <p>The loss of a step is the mean negative log-probability of its micro-batch's response
 * tokens, so a long turn weighs by its tokens, as in ordinary language-model training. Each
 * epoch draws a new order from its seed: samples are shuffled, sorted by length only within
 * windows (so padding stays small), packed, and the micro-batches shuffled again; the learning
 * rate follows a {@link Schedule}. Owns the optimizer, not the model (which must be trainable).
 */
public final class SftUpdate implements AutoCloseable {

  /** One pass over the samples: token-mean loss, tokens, optimizer steps, seconds, last rate. */
  public record Epoch(double loss, long tokens, int steps, double seconds, double lr) {
    /** Response tokens learned per second. */
    public double tokensPerSecond() {
      return tokens / Math.max(1e-9, seconds);
    }
  }

  /**
   * Linear warm-up to {@code peak} over {@code warmup} steps, then a cosine decay to
   * {@code floor * peak} at step {@code total} (held there after). A constant rate is
   * {@code constant(peak)}.
   */
  public record Schedule(double peak, long warmup, long total, double floor) {
    public Schedule {
      if (!(peak >= 0) || warmup < 0 || total < 1 || !(floor >= 0 && floor <= 1)) {
        throw new IllegalArgumentException("a schedule needs peak >= 0, warmup >= 0, total >= 1 and floor in"
            + " [0, 1], got " + peak + ", " + warmup + ", " + total + ", " + floor);
      }
    }

    public static Schedule constant(double lr) {
      return new Schedule(lr, 0, 1, 1);
    }

    /** The rate of optimizer step {@code step} (0-based). */
    public double lr(long step) {
      if (step < warmup) {
        return peak * (step + 1) / warmup;
      }
      double done = Math.min(1, (double) (step - warmup) / Math.max(1, total - warmup));
      return peak * (floor + (1 - floor) * 0.5 * (1 + Math.cos(Math.PI * done)));
    }
  }

  /** Samples sorted by length together before packing: small enough to keep the order random. */
  private static final int SORT_WINDOW = 64;

  private final Qwen3Model policy;
  private final PolicyForward forward;
  private final AdamW optimizer;
  private final double budget;
  private final MicroBatches.TokenCost cost;
  private Schedule schedule;

  public SftUpdate(Qwen3Model policy, AdamW.Hyper hyper, int microBatchTokens,
      int attentionChunk) {
    this.policy = policy;
    // Temperature 1: the student learns the teacher's text under its own plain distribution.
    this.forward = new PolicyForward(policy, 1.0, attentionChunk);
    this.optimizer = new AdamW(policy.parameters(), hyper);
    this.budget = microBatchTokens;
    this.cost = MicroBatches.TokenCost.of(policy.config());
    this.schedule = Schedule.constant(hyper.lr());
  }

  /** The rate of the following steps, by the optimizer's step count. */
  public SftUpdate schedule(Schedule schedule) {
    this.schedule = schedule;
    return this;
  }

  /** Optimizer steps of one epoch over {@code samples} packed longest first (a schedule's unit). */
  public int stepsPerEpoch(List<ResponseSample> samples) {
    return MicroBatches.byCost(samples, budget, cost).size();
  }

  public AdamW optimizer() {
    return optimizer;
  }

  /** One epoch: every sample once, longest first, one optimizer step per micro-batch. */
  public Epoch epoch(List<ResponseSample> samples) {
    return run(samples, MicroBatches.byCost(samples, budget, cost), new Tally());
  }

  /** One epoch in an order drawn from {@code seed} (see the class comment). */
  public Epoch epoch(List<ResponseSample> samples, long seed) {
    return epoch(samples, seed, new Tally());
  }

  /** As above, counting the response tokens trained on in {@code tokens} (its total: the epoch's). */
  public Epoch epoch(List<ResponseSample> samples, long seed, Tally tokens) {
    return run(samples, shuffled(samples, new Random(seed)), tokens);
  }

  /**
   * The token-mean loss of {@code samples} without learning from them (no gradient): the
   * held-out loss of a split the student never trains on.
   */
  public double loss(List<ResponseSample> samples) {
    double nll = 0;
    long tokens = 0;
    for (List<Integer> micro : MicroBatches.byCost(samples, budget, cost)) {
      List<ResponseSample> rows = micro.stream().map(samples::get).toList();
      try (NDManager work = policy.newWorkManager()) {
        ResponseLogProbs lp = forward.scoreFrozen(work, rows);
        nll -= lp.logProbs().mul(lp.mask()).sum().getFloat();
        tokens += rows.stream().mapToLong(r -> r.responseIds().length).sum();
      }
    }
    return nll / Math.max(1, tokens);
  }

  private List<List<Integer>> shuffled(List<ResponseSample> samples, Random random) {
    List<Integer> order = new ArrayList<>(IntStream.range(0, samples.size()).boxed().toList());
    Collections.shuffle(order, random);
    List<List<Integer>> batches = new ArrayList<>();
    for (int from = 0; from < order.size(); from += SORT_WINDOW) {
      List<Integer> window = order.subList(from, Math.min(order.size(), from + SORT_WINDOW));
      List<ResponseSample> part = window.stream().map(samples::get).toList();
      for (List<Integer> micro : MicroBatches.byCost(part, budget, cost)) {
        batches.add(micro.stream().map(window::get).toList());
      }
    }
    Collections.shuffle(batches, random);
    return batches;
  }

  private Epoch run(List<ResponseSample> samples, List<List<Integer>> batches, Tally progress) {
    if (samples.isEmpty()) {
      throw new IllegalArgumentException("SFT needs at least one sample; the teacher kept no turn");
    }
    progress.total(samples.stream().mapToLong(s -> s.responseIds().length).sum());
    long start = System.nanoTime();
    double nll = 0;
    long tokens = 0;
    int steps = 0;
    double lr = 0;
    for (List<Integer> micro : batches) {
      List<ResponseSample> rows = micro.stream().map(samples::get).toList();
      long n = rows.stream().mapToLong(s -> s.responseIds().length).sum();
      try (NDManager work = policy.newWorkManager()) {
        PolicyForward.Trained t = forward.train(work, rows,
            (lp, mask) -> lp.mul(mask).sum().neg().div(TorchScalar.like(lp, n)));
        nll += t.loss() * n;
      } catch (RuntimeException e) {
        optimizer.zeroGradients();
        throw e;
      }
      lr = schedule.lr(optimizer.stepCount());
      try {
        optimizer.step(lr);
      } catch (IllegalStateException e) {
        throw new IllegalStateException(e.getMessage() + "; the micro-batch held " + rows.size()
            + " samples (prompt + response tokens: " + rows.stream()
                .map(r -> r.promptIds().length + " + " + r.responseIds().length).toList() + ") at lr " + lr, e);
      }
      policy.weightsChanged();
      tokens += n;
      progress.add(n);
      steps++;
    }
    return new Epoch(nll / tokens, tokens, steps, (System.nanoTime() - start) / 1e9, lr);
  }

  @Override
  public void close() {
    optimizer.close();
  }
}
