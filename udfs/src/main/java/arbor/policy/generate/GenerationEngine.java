package arbor.policy.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import arbor.policy.model.Qwen3Model;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Generates for many concurrent callers with one model on one device, batching their decode
 * steps (continuous batching): a sequence joins the batch when its prompt has been prefilled and
 * leaves it when it stops, between two steps, while the others go on.
 *
 * <p>One thread owns all native work. Each step it prefills at most {@code prefillChunk} prompt
 * tokens, prompt after prompt in arrival order (so a long prompt delays the running sequences by
 * one chunk per step, not by its whole length), then runs one decode step for every running
 * sequence. Each sequence samples from its own seeded generator, so its tokens do not depend on
 * its batch.
 *
 * <p>Slots: running sequences occupy cache slots [0, running), the prompt being prefilled the
 * slot right after them. A sequence that stops hands its slot to the last running one.
 */
public final class GenerationEngine implements AutoCloseable {

  /**
   * Engine limits.
   *
   * @param maxBatch most sequences decoding together; later requests wait for a free slot
   * @param prefillChunk most prompt tokens prefilled per engine step
   * @param initialCapacity KV cache positions per slot to start with (it doubles as needed)
   */
  public record Options(int maxBatch, int prefillChunk, int initialCapacity) {
    public Options {
      if (maxBatch < 1 || prefillChunk < 1 || initialCapacity < 1) {
        throw new IllegalArgumentException("engine options must be positive: " + maxBatch + ", "
            + prefillChunk + ", " + initialCapacity);
      }
    }

    public static Options defaults() {
      return new Options(64, 256, 512);
    }
  }

  private final Qwen3Model model;
  private final Options options;
  private final BatchKvCache cache;
  private final LinkedBlockingQueue<Sequence> incoming = new LinkedBlockingQueue<>();
  private final Thread loop;
  private volatile boolean closed;

  /** One request in flight, in the order of its life: waiting, prefilling, running. */
  private static final class Sequence {
    final int[] prompt;
    final SamplingParams params;
    final CompletableFuture<Generation> result = new CompletableFuture<>();
    final SplittableRandom rng;
    final int[] tokens;
    final float[] logProbs;
    int generated;
    /** Tokens in the cache. */
    int cached;

    Sequence(int[] prompt, SamplingParams params) {
      this.prompt = prompt;
      this.params = params;
      this.rng = new SplittableRandom(params.seed());
      this.tokens = new int[params.maxNewTokens()];
      this.logProbs = new float[params.maxNewTokens()];
    }

    int lastToken() {
      return tokens[generated - 1];
    }
  }

  public GenerationEngine(Qwen3Model model, Options options) {
    this.model = model;
    this.options = options;
    this.cache = new BatchKvCache(model.newWorkManager(), model.config(),
        Math.min(8, options.maxBatch()), options.initialCapacity());
    this.loop = Thread.ofPlatform().daemon().name("arbor-generation-engine").unstarted(this::run);
    loop.start();
  }

  /**
   * Queues a prompt; the future completes when the sequence stops. Cancelling the future drops
   * the sequence at the next step and frees its slot.
   */
  public CompletableFuture<Generation> submit(int[] promptIds, SamplingParams params) {
    if (promptIds.length == 0) {
      throw new IllegalArgumentException("prompt must have at least one token");
    }
    int vocab = model.config().vocabSize();
    for (int i = 0; i < promptIds.length; i++) {
      // Checked here: a bad id would fail the whole batch's step inside libtorch.
      if (promptIds[i] < 0 || promptIds[i] >= vocab) {
        throw new IllegalArgumentException("prompt token " + i + " is " + promptIds[i]
            + ", outside the model's vocabulary [0, " + vocab + "); wrong tokenizer?");
      }
    }
    long longest = (long) promptIds.length + params.maxNewTokens();
    if (longest > model.config().maxPositionEmbeddings()) {
      throw new IllegalArgumentException("prompt (" + promptIds.length + ") + max_new_tokens ("
          + params.maxNewTokens() + ") exceeds the model's max_position_embeddings ("
          + model.config().maxPositionEmbeddings() + ")");
    }
    if (closed) {
      throw new IllegalStateException("GenerationEngine is closed");
    }
    Sequence s = new Sequence(promptIds.clone(), params);
    incoming.add(s);
    if (closed && incoming.remove(s)) {
      // Lost the race with close(): the engine thread will not see this request.
      s.result.completeExceptionally(new IllegalStateException("GenerationEngine is closed"));
    }
    return s.result;
  }

  /** Work done so far (for benchmarks and metrics); diff two snapshots to time a phase. */
  public record Stats(long prefillTokens, long prefillNanos, long decodeSteps, long decodeTokens,
      long decodeNanos) {

    public Stats minus(Stats o) {
      return new Stats(prefillTokens - o.prefillTokens, prefillNanos - o.prefillNanos,
          decodeSteps - o.decodeSteps, decodeTokens - o.decodeTokens,
          decodeNanos - o.decodeNanos);
    }
  }

  public Stats stats() {
    return new Stats(prefillTokens, prefillNanos, decodeSteps, decodeTokens, decodeNanos);
  }

  /** Submits and waits. */
  public Generation generate(int[] promptIds, SamplingParams params) {
    return submit(promptIds, params).join();
  }

  // ---- the engine thread ----

  private final ArrayDeque<Sequence> waiting = new ArrayDeque<>();
  private final List<Runnable> finishedThisStep = new ArrayList<>();
  // Written by the engine thread only; volatile so stats() reads them from any thread.
  private volatile long prefillTokens;
  private volatile long prefillNanos;
  private volatile long decodeSteps;
  private volatile long decodeTokens;
  private volatile long decodeNanos;
  private final List<Sequence> running = new ArrayList<>();
  private Sequence prefilling;

  private void run() {
    // Torch's grad mode is per thread and on by default in new threads: without this, a model
    // the learner made trainable would record an autograd graph for every decode step.
    JniUtils.setGradMode(false);
    while (!closed) {
      try {
        if (waiting.isEmpty() && prefilling == null && running.isEmpty()) {
          Sequence s = incoming.poll(100, TimeUnit.MILLISECONDS);
          if (s != null) {
            waiting.add(s);
          }
          continue;
        }
        incoming.drainTo(waiting);
        step();
      } catch (InterruptedException e) {
        break;
      } catch (RuntimeException | Error e) {
        failAll(e);
      }
    }
    failAll(new IllegalStateException("GenerationEngine closed"));
  }

  /**
   * One engine step: up to {@code prefillChunk} prompt tokens of prefill (short prompts finish
   * and join the batch in the same step), then one decode step for every running sequence.
   */
  private void step() {
    int budget = options.prefillChunk();
    while (budget > 0) {
      if (prefilling == null) {
        if (waiting.isEmpty() || running.size() >= options.maxBatch()) {
          break;
        }
        prefilling = waiting.poll();
        if (prefilling.result.isCancelled()) {
          prefilling = null;
          continue;
        }
      }
      budget -= prefillChunk(prefilling, running.size(), budget);
    }
    if (!running.isEmpty()) {
      decode();
    }
    // Callers hear of their results only after the step's counters are final.
    finishedThisStep.forEach(Runnable::run);
    finishedThisStep.clear();
  }

  /** Prefills at most {@code budget} more prompt tokens of {@code s}; returns how many. */
  private int prefillChunk(Sequence s, int slot, int budget) {
    long t0 = System.nanoTime();
    int start = s.cached;
    int count = Math.min(budget, s.prompt.length - start);
    cache.ensure(slot + 1, s.prompt.length + s.params.maxNewTokens(), running.size() + 1,
        longestCached(s));
    try (NDManager work = model.newWorkManager()) {
      long[] ids = new long[count];
      long[] positions = new long[count];
      for (int i = 0; i < count; i++) {
        ids[i] = s.prompt[start + i];
        positions[i] = start + i;
      }
      NDArray tokens = work.create(ids, new Shape(1, count));
      NDArray hidden = model.hidden(tokens, positions, cache.prefill(work, slot, start, count));
      s.cached += count;
      if (s.cached == s.prompt.length) {
        // Last chunk: its last position predicts the first new token.
        NDArray last = hidden.get(new NDIndex(":, {}:, :", count - 1));  // (1, 1, hidden)
        Sampler.Rows rows = distributions(work, last, List.of(s));
        prefilling = null;
        if (accept(s, rows, 0)) {
          running.add(s);
        }
      }
    }
    prefillTokens += count;
    prefillNanos += System.nanoTime() - t0;
    return count;
  }

  private void decode() {
    long t0 = System.nanoTime();
    int n = running.size();
    int[] lengths = new int[n];
    long[] ids = new long[n];
    long[] positions = new long[n];
    int longest = 0;
    for (int i = 0; i < n; i++) {
      Sequence s = running.get(i);
      lengths[i] = s.cached;
      ids[i] = s.lastToken();
      positions[i] = s.cached;
      longest = Math.max(longest, s.cached + 1);
    }
    int slotsInUse = n + (prefilling != null ? 1 : 0);
    cache.ensure(slotsInUse, longest, slotsInUse, longestCached(prefilling));
    Sampler.Rows rows;
    try (NDManager work = model.newWorkManager()) {
      NDArray tokens = work.create(ids, new Shape(n, 1));
      NDArray hidden = model.hidden(tokens, positions, cache.decode(work, lengths));
      rows = distributions(work, hidden, running);
    }
    List<Sequence> finished = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Sequence s = running.get(i);
      s.cached++;
      if (!accept(s, rows, i)) {
        finished.add(s);
      }
    }
    for (Sequence s : finished) {
      leave(s);
    }
    decodeSteps++;
    decodeTokens += n;
    decodeNanos += System.nanoTime() - t0;
  }

  /**
   * The next-token distribution of each sequence, log-softmax(logits / temperature) and its exp
   * (temperature 1 for greedy ones), computed by libtorch for the whole batch at once.
   */
  private Sampler.Rows distributions(NDManager work, NDArray hidden, List<Sequence> seqs) {
    float[] inverse = new float[seqs.size()];
    for (int i = 0; i < inverse.length; i++) {
      double t = seqs.get(i).params.temperature();
      inverse[i] = (float) (t == 0 ? 1.0 : 1.0 / t);
    }
    NDArray logits = model.logits(hidden);                                   // (n, 1, vocab)
    NDArray logProbs = logits.mul(work.create(inverse, new Shape(inverse.length, 1, 1)))
        .logSoftmax(2);
    return new Sampler.Rows(logProbs.toFloatArray(), logProbs.exp().toFloatArray(),
        model.config().vocabSize());
  }

  /** Samples the next token of {@code s}; returns false when the sequence has stopped. */
  private boolean accept(Sequence s, Sampler.Rows rows, int row) {
    if (s.result.isCancelled()) {
      // The caller gave up (e.g. its RLM node was stopped): free the slot, generate no more.
      return false;
    }
    Sampler.Draw d = Sampler.sample(rows, row, s.params, s.rng);
    s.tokens[s.generated] = d.token();
    s.logProbs[s.generated] = d.logProb();
    s.generated++;
    Generation.FinishReason reason = s.params.stopTokenIds().contains(d.token())
        ? Generation.FinishReason.STOP
        : s.generated == s.params.maxNewTokens() ? Generation.FinishReason.LENGTH : null;
    if (reason == null) {
      return true;
    }
    Generation g = new Generation(Arrays.copyOf(s.tokens, s.generated),
        Arrays.copyOf(s.logProbs, s.generated), reason);
    finishedThisStep.add(() -> s.result.complete(g));
    return false;
  }

  /** Frees the slot of a stopped sequence: the last running one moves into it. */
  private void leave(Sequence s) {
    int slot = running.indexOf(s);
    int last = running.size() - 1;
    Sequence moved = running.get(last);
    cache.move(last, slot, moved.cached);
    running.set(slot, moved);
    running.remove(last);
    if (prefilling != null) {
      // The prompt being prefilled sits right after the running ones: keep it there.
      cache.move(last + 1, last, prefilling.cached);
    }
  }

  private int longestCached(Sequence extra) {
    int m = extra == null ? 0 : extra.cached;
    for (Sequence s : running) {
      m = Math.max(m, s.cached);
    }
    return m;
  }

  private void failAll(Throwable e) {
    // Sequences that finished before the failure keep their results.
    finishedThisStep.forEach(Runnable::run);
    finishedThisStep.clear();
    List<Sequence> all = new ArrayList<>(running);
    all.addAll(waiting);
    if (prefilling != null) {
      all.add(prefilling);
    }
    incoming.drainTo(all);
    running.clear();
    waiting.clear();
    prefilling = null;
    all.forEach(s -> s.result.completeExceptionally(e));
  }

  /** Stops the engine thread (pending requests fail) and frees the cache. */
  @Override
  public void close() {
    closed = true;
    loop.interrupt();
    try {
      loop.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    cache.close();
  }
}
