package arbor.policy.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import arbor.conf.DjlPolicySettings;
import arbor.conf.DjlPolicySettings.Matmul;
import arbor.policy.model.Qwen3Model;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Generates for many concurrent callers with one model on one device, batching their work
 * (continuous batching): a sequence joins the decode batch when its prompt has been prefilled and
 * leaves it when it stops, between two steps, while the others go on.
 *
 * <p>One thread owns all native work. Each step:
 * <ol>
 *   <li>admits waiting sequences while the batch has room and the KV memory can hold their
 *       prompts, first taking whatever the prefix cache already holds of them;
 *   <li>prefills up to {@code prefillChunk} prompt tokens, shared out over the admitted sequences
 *       in admission order and run as a few padded batches (several prompts per matmul);
 *   <li>runs one decode step for every running sequence; one that needs a block when none is
 *       left preempts the latest admitted sequence, which gives its blocks back and later
 *       prefills again (mostly from the prefix cache), its tokens and generator kept.
 * </ol>
 * Each sequence samples from its own seeded generator, and the model computes every row the same
 * way whatever batch it is in ({@link Qwen3Model#invariantAttention}, weight matmuls of at least
 * {@link Qwen3Model#MIN_GEMM_ROWS} rows), so its tokens and log-probabilities are the same bits
 * whatever its batch, whether its prefix came from the cache and whether it was preempted.
 *
 * <p>KV memory is {@link KvBlocks}: a fixed budget of fixed-size blocks. The prefix cache keys
 * full blocks by their tokens and everything before them, under a root that changes with the
 * model's {@link Qwen3Model#weightsVersion()}: no entry is ever used with other weights.
 */
public final class GenerationEngine implements AutoCloseable {

  /**
   * Engine settings.
   *
   * @param maxBatch most sequences admitted together (prefilling or decoding); later ones wait
   * @param prefillChunk most prompt tokens prefilled per engine step, over all sequences: it
   *     bounds how long a step (and so every running sequence's next token) can take
   * @param kvBudgetBytes memory for keys and values, taken once at start
   * @param blockSize token positions per KV block: the unit of allocation and of prefix reuse
   * @param prefixCache whether full blocks are kept and shared between sequences
   * @param matmul the CPU matmul kernel, see {@link Matmul}
   */
  public record Options(int maxBatch, int prefillChunk, long kvBudgetBytes, int blockSize,
      boolean prefixCache, Matmul matmul) {

    public static final long DEFAULT_KV_BUDGET = 4L << 30;
    public static final int DEFAULT_BLOCK_SIZE = 16;

    public Options {
      if (maxBatch < 1 || prefillChunk < 1 || kvBudgetBytes < 1 || blockSize < 1) {
        throw new IllegalArgumentException("engine options must be positive: max_batch "
            + maxBatch + ", prefill_chunk " + prefillChunk + ", kv budget " + kvBudgetBytes
            + " bytes, block_size " + blockSize);
      }
      java.util.Objects.requireNonNull(matmul, "matmul");
    }

    /** The given batching limits with the default memory settings and the prefix cache on. */
    public Options(int maxBatch, int prefillChunk) {
      this(maxBatch, prefillChunk, DEFAULT_KV_BUDGET, DEFAULT_BLOCK_SIZE, true, Matmul.AUTO);
    }

    public static Options defaults() {
      return new Options(64, 512);
    }

    /** The engine settings of the configuration ({@code policy.djl.engine}). */
    public static Options of(DjlPolicySettings.Engine e) {
      return new Options(e.maxBatch(), e.prefillChunk(), (long) e.kvBudgetMb() << 20,
          e.blockSize(), e.prefixCache(), e.matmul());
    }

    public Options withKvBudget(long bytes, int blockSize) {
      return new Options(maxBatch, prefillChunk, bytes, blockSize, prefixCache, matmul);
    }

    public Options withPrefixCache(boolean on) {
      return new Options(maxBatch, prefillChunk, kvBudgetBytes, blockSize, on, matmul);
    }

    public Options withMatmul(Matmul kernel) {
      return new Options(maxBatch, prefillChunk, kvBudgetBytes, blockSize, prefixCache, kernel);
    }
  }

  private final Qwen3Model model;
  private final Options options;
  private final KvBlocks blocks;
  private final int blockSize;
  private final EngineMatmul matmul;
  private final LinkedBlockingQueue<Sequence> incoming = new LinkedBlockingQueue<>();
  private final Thread loop;
  private volatile boolean closed;

  public GenerationEngine(Qwen3Model model, Options options) {
    this.model = model;
    this.options = options;
    this.matmul = EngineMatmul.choose(model, options.matmul(), options.kvBudgetBytes());
    this.blocks = new KvBlocks(model.newWorkManager(), model.config(), options.kvBudgetBytes(),
        options.blockSize(), matmul.parallel() != null);
    this.blockSize = options.blockSize();
    this.root = blocks.newRoot();
    this.version = model.weightsVersion();
    this.loop = Thread.ofPlatform().daemon().name("arbor-generation-engine").unstarted(this::run);
    loop.start();
  }

  public Options options() {
    return options;
  }

  /** The matmul kernel this engine chose, and why (for logs and benchmarks). */
  public String matmul() {
    return matmul.description();
  }

  /** The kernel this engine multiplies by the weights with (valid until it is closed). */
  public Qwen3Model.Linear linear() {
    return matmul.linear();
  }

  /**
   * Queues a prompt; the future completes when the sequence stops. Cancelling the future drops
   * the sequence at the next step and frees its blocks.
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
    // A sequence alone must fit, or it could wait forever; every other shortage only waits.
    if (Sequence.blocksFor((int) longest, blockSize) > blocks.capacity()) {
      throw new IllegalArgumentException("prompt (" + promptIds.length + ") + max_new_tokens ("
          + params.maxNewTokens() + ") needs " + Sequence.blocksFor((int) longest, blockSize)
          + " KV blocks of " + blockSize + " positions; the engine's KV budget holds "
          + blocks.capacity() + " (policy.djl.engine.kv_budget_mb)");
    }
    if (closed) {
      throw new IllegalStateException("GenerationEngine is closed");
    }
    Sequence s = new Sequence(promptIds.clone(), params, blockSize);
    incoming.add(s);
    if (closed && incoming.remove(s)) {
      // Lost the race with close(): the engine thread will not see this request.
      s.result.completeExceptionally(new IllegalStateException("GenerationEngine is closed"));
    }
    return s.result;
  }

  /** Submits and waits. */
  public Generation generate(int[] promptIds, SamplingParams params) {
    return submit(promptIds, params).join();
  }

  /**
   * Work done so far (for benchmarks and metrics); diff two snapshots to time a phase.
   *
   * @param promptTokens prompt tokens of admitted sequences (each counted once)
   * @param prefillTokens tokens whose keys and values were computed by prefill, resumed
   *     sequences' recomputation included
   * @param cachedTokens prompt tokens found in the prefix cache instead
   * @param peakBlocks most KV blocks held by sequences at once (since the last
   *     {@link #resetPeak}); {@code totalBlocks} is the budget
   */
  public record Stats(long promptTokens, long prefillTokens, long cachedTokens, long prefillNanos,
      long decodeSteps, long decodeTokens, long decodeNanos, long preemptions, int peakBlocks,
      int totalBlocks) {

    public Stats minus(Stats o) {
      return new Stats(promptTokens - o.promptTokens, prefillTokens - o.prefillTokens,
          cachedTokens - o.cachedTokens, prefillNanos - o.prefillNanos,
          decodeSteps - o.decodeSteps, decodeTokens - o.decodeTokens,
          decodeNanos - o.decodeNanos, preemptions - o.preemptions, peakBlocks, totalBlocks);
    }
  }

  public Stats stats() {
    return new Stats(promptTokens, prefillTokens, cachedTokens, prefillNanos, decodeSteps,
        decodeTokens, decodeNanos, preemptions, peakBlocks, blocks.capacity());
  }

  /** Starts a new peak-memory measurement (takes effect at the engine's next step). */
  public void resetPeak() {
    resetPeak = true;
  }

  // ---- the engine thread ----

  private final ArrayDeque<Sequence> waiting = new ArrayDeque<>();
  private final List<Sequence> prefilling = new ArrayList<>();
  private final List<Sequence> running = new ArrayList<>();
  private final List<Runnable> finishedThisStep = new ArrayList<>();
  private long root;
  private long version;
  private long admissions;
  // Written by the engine thread only; volatile so stats() reads them from any thread.
  private volatile long promptTokens;
  private volatile long prefillTokens;
  private volatile long cachedTokens;
  private volatile long prefillNanos;
  private volatile long decodeSteps;
  private volatile long decodeTokens;
  private volatile long decodeNanos;
  private volatile long preemptions;
  private volatile int peakBlocks;
  private volatile boolean resetPeak;

  private void run() {
    // Torch's grad mode is per thread and on by default in new threads: without this, a model
    // the learner made trainable would record an autograd graph for every decode step.
    JniUtils.setGradMode(false);
    if (matmul.parallel() != null) {
      // With the vector kernels the whole forward and the sampling run in Java; libtorch is left
      // the embedding lookup and the rare top-k/top-p row, and its OpenMP threads would only
      // spin on the cores the kernels need. OpenMP keeps the count per thread, so the learner's
      // threads keep theirs.
      JniUtils.setNumThreads(1);
    }
    while (!closed) {
      try {
        if (waiting.isEmpty() && prefilling.isEmpty() && running.isEmpty()) {
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

  private void step() {
    if (model.weightsVersion() != version) {
      // New weights: every cached block describes the old ones.
      version = model.weightsVersion();
      blocks.clearCache();
      root = blocks.newRoot();
    }
    if (resetPeak) {
      resetPeak = false;
      blocks.resetPeak();
    }
    dropCancelled();
    admit();
    boolean progressed = prefill();
    if (!running.isEmpty()) {
      decode();
      progressed = true;
    }
    if (!progressed && !prefilling.isEmpty()) {
      // Admitted prompts hold all the memory and none can go on: let the oldest through.
      preempt(latestAdmitted());
    }
    peakBlocks = blocks.peakInUse();
    // Callers hear of their results only after the step's counters are final.
    finishedThisStep.forEach(Runnable::run);
    finishedThisStep.clear();
  }

  private void dropCancelled() {
    waiting.removeIf(s -> s.result.isCancelled());
    for (List<Sequence> list : List.of(prefilling, running)) {
      for (Iterator<Sequence> it = list.iterator(); it.hasNext(); ) {
        Sequence s = it.next();
        if (s.result.isCancelled()) {
          // The caller gave up (e.g. its RLM node was stopped): generate no more for it.
          blocks.release(s.blocks, s.blockCount);
          it.remove();
        }
      }
    }
  }

  /**
   * Moves waiting sequences into prefill while there is room. A sequence whose next block is
   * being computed right now by another (the G samples of one query arrive together) waits a
   * step and then finds it in the cache, instead of computing it a second time.
   */
  private void admit() {
    Set<KvBlocks.BlockKey> pending = new HashSet<>();
    for (Sequence p : prefilling) {
      KvBlocks.BlockKey k = nextKey(p);
      if (k != null) {
        pending.add(k);
      }
    }
    int reserved = 0;
    for (Sequence p : prefilling) {
      reserved += Sequence.blocksFor(p.prefillTarget(), blockSize) - p.blockCount;
    }
    for (Iterator<Sequence> it = waiting.iterator(); it.hasNext(); ) {
      if (prefilling.size() + running.size() >= options.maxBatch()) {
        return;
      }
      Sequence s = it.next();
      List<Integer> hits = options.prefixCache() ? cacheHits(s) : List.of();
      long chain = hits.isEmpty() ? root : blocks.serial(hits.get(hits.size() - 1));
      int target = s.prefillTarget();
      int from = hits.size() * blockSize;
      if (options.prefixCache() && (from + blockSize <= target)
          && pending.contains(new KvBlocks.BlockKey(chain, s.blockTokens(hits.size(),
              blockSize)))) {
        continue;
      }
      int needed = Sequence.blocksFor(target, blockSize) - hits.size();
      // Hits nobody else uses count as available until taken.
      long idleHits = hits.stream().filter(blocks::unused).count();
      if (needed > blocks.available() - reserved - idleHits) {
        // Memory is short: admit nothing more, so the queue keeps its order.
        return;
      }
      it.remove();
      s.reset(root);
      for (int b : hits) {
        blocks.acquire(b);
        s.blocks[s.blockCount++] = b;
      }
      s.keyedBlocks = hits.size();
      s.chain = chain;
      s.cached = from;
      s.admitted = admissions++;
      if (!s.counted) {
        s.counted = true;
        promptTokens += s.promptLength;
        cachedTokens += from;
      }
      reserved += needed;
      if (s.cached == target) {
        running.add(s);  // a resumed sequence found whole in the cache
      } else {
        prefilling.add(s);
        KvBlocks.BlockKey k = nextKey(s);
        if (k != null) {
          pending.add(k);
        }
      }
    }
  }

  /**
   * The cached blocks that start {@code s}, leaving at least one token to compute when the
   * prefill must end with the distribution of the first new token.
   */
  private List<Integer> cacheHits(Sequence s) {
    int limit = s.generated == 0 ? s.prefillTarget() - 1 : s.prefillTarget();
    List<Integer> hits = new ArrayList<>();
    long chain = root;
    for (int j = 0; (j + 1) * blockSize <= limit; j++) {
      int b = blocks.lookup(chain, s.blockTokens(j, blockSize));
      if (b < 0) {
        break;
      }
      hits.add(b);
      chain = blocks.serial(b);
    }
    return hits;
  }

  /** The key of the next full prompt block {@code s} will compute, or null. */
  private KvBlocks.BlockKey nextKey(Sequence s) {
    int j = s.keyedBlocks;
    if ((j + 1) * blockSize > s.prefillTarget()) {
      return null;
    }
    return new KvBlocks.BlockKey(s.chain, s.blockTokens(j, blockSize));
  }

  /** One chunk of one sequence's prefill in this step. */
  private record Chunk(Sequence seq, int start, int count) {}

  /** Runs this step's prefill; returns whether any token was prefilled. */
  private boolean prefill() {
    int budget = options.prefillChunk();
    List<Chunk> chunks = new ArrayList<>();
    for (Sequence s : prefilling) {
      if (budget == 0) {
        break;
      }
      int count = Math.min(budget, s.prefillTarget() - s.cached);
      count = Math.min(count, grow(s, s.cached + count) - s.cached);
      if (count <= 0) {
        break;  // out of memory: the decode step below may free some
      }
      chunks.add(new Chunk(s, s.cached, count));
      budget -= count;
    }
    if (chunks.isEmpty()) {
      return false;
    }
    long t0 = System.nanoTime();
    for (List<Chunk> group : groups(chunks)) {
      forwardPrefill(group);
    }
    prefillNanos += System.nanoTime() - t0;
    return true;
  }

  /**
   * Chunks grouped into padded batches: longest first, a chunk joins a batch while the batch
   * stays at least three-quarters real tokens.
   */
  private static List<List<Chunk>> groups(List<Chunk> chunks) {
    List<Chunk> sorted = new ArrayList<>(chunks);
    sorted.sort(Comparator.comparingInt(Chunk::count).reversed());
    List<List<Chunk>> groups = new ArrayList<>();
    List<Chunk> current = new ArrayList<>();
    int real = 0;
    for (Chunk c : sorted) {
      if (!current.isEmpty()) {
        int width = current.get(0).count();
        if (4L * (real + c.count()) < 3L * width * (current.size() + 1)) {
          groups.add(current);
          current = new ArrayList<>();
          real = 0;
        }
      }
      current.add(c);
      real += c.count();
    }
    groups.add(current);
    return groups;
  }

  private void forwardPrefill(List<Chunk> group) {
    int n = group.size();
    int width = group.get(0).count();
    int[][] tables = new int[n][];
    int[] starts = new int[n];
    int[] counts = new int[n];
    long[] ids = new long[n * width];
    long[] positions = new long[n * width];
    for (int i = 0; i < n; i++) {
      Chunk c = group.get(i);
      tables[i] = c.seq().blocks;
      starts[i] = c.start();
      counts[i] = c.count();
      for (int t = 0; t < width; t++) {
        int p = c.start() + Math.min(t, c.count() - 1);
        ids[i * width + t] = c.seq().tokens[p];
        positions[i * width + t] = p;
      }
    }
    List<Integer> sampleRows = new ArrayList<>();
    List<Sequence> toSample = new ArrayList<>();
    try (NDManager work = model.newWorkManager()) {
      NDArray tokens = work.create(ids, new Shape(n, width));
      NDArray hidden = matmul.hidden(model, tokens, positions, blocks, tables, starts, counts);
      for (int i = 0; i < n; i++) {
        Chunk c = group.get(i);
        Sequence s = c.seq();
        s.cached += c.count();
        keyFullBlocks(s);
        if (s.cached == s.prefillTarget()) {
          prefilling.remove(s);
          if (s.generated == 0) {
            sampleRows.add(i);
            toSample.add(s);
          } else {
            running.add(s);  // resumed: its last token goes into the next decode step
          }
        }
      }
      if (!toSample.isEmpty()) {
        // The last real position of each finished prompt predicts its first new token.
        long[] rows = new long[toSample.size()];
        long[] last = new long[toSample.size()];
        for (int j = 0; j < rows.length; j++) {
          rows[j] = sampleRows.get(j);
          last[j] = counts[sampleRows.get(j)] - 1;
        }
        NDArray h = hidden.get(new NDIndex("{}, {}", work.create(rows), work.create(last)));
        Sampler.Draw[] draws = draw(h, toSample);
        for (int j = 0; j < draws.length; j++) {
          Sequence s = toSample.get(j);
          if (accept(s, draws[j])) {
            running.add(s);
          } else {
            blocks.release(s.blocks, s.blockCount);
          }
        }
      }
    }
    for (Chunk c : group) {
      prefillTokens += c.count();
    }
  }

  private void decode() {
    // Every running sequence needs room for the token it feeds; taking it may preempt others.
    for (Sequence s : new ArrayList<>(running)) {
      while (running.contains(s) && grow(s, s.cached + 1) < s.cached + 1) {
        preempt(latestAdmitted());
      }
    }
    if (running.isEmpty()) {
      return;
    }
    long t0 = System.nanoTime();
    int n = running.size();
    int[][] tables = new int[n][];
    int[] starts = new int[n];
    int[] ones = new int[n];
    long[] ids = new long[n];
    long[] positions = new long[n];
    for (int i = 0; i < n; i++) {
      Sequence s = running.get(i);
      tables[i] = s.blocks;
      starts[i] = s.cached;
      ones[i] = 1;
      ids[i] = s.lastToken();
      positions[i] = s.cached;
    }
    Sampler.Draw[] draws;
    try (NDManager work = model.newWorkManager()) {
      NDArray tokens = work.create(ids, new Shape(n, 1));
      NDArray hidden = matmul.hidden(model, tokens, positions, blocks, tables, starts, ones);
      draws = draw(hidden.reshape(n, -1), running);
    }
    List<Sequence> finished = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Sequence s = running.get(i);
      s.cached++;
      keyFullBlocks(s);
      if (!accept(s, draws[i])) {
        finished.add(s);
      }
    }
    for (Sequence s : finished) {
      running.remove(s);
      blocks.release(s.blocks, s.blockCount);
    }
    decodeSteps++;
    decodeTokens += n;
    decodeNanos += System.nanoTime() - t0;
  }

  /**
   * Gives {@code s} blocks for positions up to {@code positions}, as far as memory allows;
   * returns how many positions its blocks now cover.
   */
  private int grow(Sequence s, int positions) {
    while (s.blockCount * blockSize < positions) {
      int b = blocks.allocate();
      if (b < 0) {
        break;
      }
      s.blocks[s.blockCount++] = b;
    }
    return Math.min(positions, s.blockCount * blockSize);
  }

  /** Keys every block of {@code s} that became full, so later sequences can reuse it. */
  private void keyFullBlocks(Sequence s) {
    if (!options.prefixCache()) {
      return;
    }
    while ((s.keyedBlocks + 1) * blockSize <= s.cached) {
      int j = s.keyedBlocks;
      s.chain = blocks.register(s.blocks[j], s.chain, s.blockTokens(j, blockSize));
      s.keyedBlocks++;
    }
  }

  private Sequence latestAdmitted() {
    Sequence latest = null;
    for (List<Sequence> list : List.of(prefilling, running)) {
      for (Sequence s : list) {
        if (latest == null || s.admitted > latest.admitted) {
          latest = s;
        }
      }
    }
    return latest;
  }

  /** Takes {@code s}'s blocks back; it waits at the head of the queue to be prefilled again. */
  private void preempt(Sequence s) {
    prefilling.remove(s);
    running.remove(s);
    blocks.release(s.blocks, s.blockCount);
    s.reset(root);
    waiting.addFirst(s);
    preemptions++;
  }

  /** The next token of each of {@code seqs}, from their final hidden states (rows, hidden). */
  private Sampler.Draw[] draw(NDArray hidden, List<Sequence> seqs) {
    List<SamplingParams> params = new ArrayList<>(seqs.size());
    List<SplittableRandom> rngs = new ArrayList<>(seqs.size());
    for (Sequence s : seqs) {
      params.add(s.params);
      rngs.add(s.rng);
    }
    return matmul.sample(model, hidden, params, rngs);
  }

  /** Records the drawn token of {@code s}; returns false when the sequence has stopped. */
  private boolean accept(Sequence s, Sampler.Draw d) {
    if (s.result.isCancelled()) {
      // Cancelled during this step: stop here rather than run one more step for nobody.
      return false;
    }
    s.tokens[s.length()] = d.token();
    s.logProbs[s.generated] = d.logProb();
    s.generated++;
    Generation.FinishReason reason = s.params.stopTokenIds().contains(d.token())
        ? Generation.FinishReason.STOP
        : s.generated == s.params.maxNewTokens() ? Generation.FinishReason.LENGTH : null;
    if (reason == null) {
      return true;
    }
    Generation g = new Generation(
        Arrays.copyOfRange(s.tokens, s.promptLength, s.length()),
        Arrays.copyOf(s.logProbs, s.generated), reason);
    finishedThisStep.add(() -> s.result.complete(g));
    return false;
  }

  private void failAll(Throwable e) {
    // Sequences that finished before the failure keep their results.
    finishedThisStep.forEach(Runnable::run);
    finishedThisStep.clear();
    List<Sequence> all = new ArrayList<>(running);
    all.addAll(prefilling);
    all.addAll(waiting);
    incoming.drainTo(all);
    for (Sequence s : running) {
      blocks.release(s.blocks, s.blockCount);
    }
    for (Sequence s : prefilling) {
      blocks.release(s.blocks, s.blockCount);
    }
    running.clear();
    prefilling.clear();
    waiting.clear();
    all.forEach(s -> s.result.completeExceptionally(e));
  }

  /** Stops the engine thread (pending requests fail) and frees the KV memory. */
  @Override
  public void close() {
    closed = true;
    loop.interrupt();
    try {
      loop.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    blocks.close();
    matmul.close();
  }
}
