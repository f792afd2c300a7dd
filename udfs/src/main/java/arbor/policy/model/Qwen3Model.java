package arbor.policy.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import arbor.policy.files.HostTensor;
import arbor.policy.files.TensorDtype;
import arbor.policy.kernels.TorchScalar;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A decoder-only transformer of the Qwen3 family, written with DJL NDArray operations (DJL's
 * own transformer blocks are BERT-style: no RoPE, RMSNorm or KV cache).
 *
 * <pre>
 * tokens (B, T)
 *   -> embed                                       (B, T, hidden)
 *   -> N x [ x + Attention(RMSNorm(x)) ; x + SwiGLU(RMSNorm(x)) ]
 *   -> RMSNorm -> head (tied to embed or not)      (B, T, vocab)
 * </pre>
 *
 * <p>Weights are kept under their Hugging Face names, so loading and exporting a checkpoint is a
 * one-to-one mapping and the learner's optimizer sees the same names. All weights live in one
 * {@link NDManager} that this model owns: closing the model frees them. A forward pass allocates
 * its activations in the caller's manager (the one that owns {@code tokens}), so concurrent
 * forwards from different threads do not share scratch memory.
 *
 * <p>Where the keys and values come from is a {@link KvSource}: the new tokens alone for a full
 * causal forward (training, reference checks), or a KV cache for generation.
 */
public final class Qwen3Model implements AutoCloseable {

  /** Masked attention scores: finite so a (never expected) fully-masked row stays NaN-free. */
  public static final float MASKED = -1e9f;

  private final ModelConfig config;
  private final NDManager manager;
  private final Map<String, NDArray> params;
  private final Map<String, TensorDtype> storedAs;
  private final Layer[] layers;
  private final NDArray embed;
  private final NDArray finalNorm;
  private final NDArray head;
  /** RoPE inverse frequencies, scaling already applied; one per pair of head dimensions. */
  private final double[] invFreq;
  private final java.util.concurrent.atomic.AtomicLong weightsVersion =
      new java.util.concurrent.atomic.AtomicLong();

  /** The weights of one decoder layer, fetched once from the name map. Biases may be null. */
  record Layer(NDArray inputNorm, NDArray q, NDArray qBias, NDArray k, NDArray kBias,
      NDArray v, NDArray vBias, NDArray o, NDArray oBias, NDArray qNorm, NDArray kNorm,
      NDArray postNorm, NDArray gate, NDArray up, NDArray down) {}

  /**
   * Where a forward pass gets the keys and values to attend over, and how it attends: the plain
   * causal source uses the step's own keys; a KV cache stores them and attends over everything
   * cached so far.
   */
  public interface KvSource {
    /**
     * Takes this step's queries q (B, nH, T, headDim) and keys and values of one layer, each
     * (B, kvHeads, T, headDim), and returns the attention output (B, T, nH * headDim).
     */
    NDArray attention(Qwen3Model model, int layer, NDArray q, NDArray keys, NDArray values);
  }

  /**
   * Rows a matmul with a weight always gets (fewer are padded with zero rows). Measured on this
   * project's CPU libtorch (MKL): a row's result is the same bits for any row count from 16 up,
   * whatever its position, and differs below (another kernel; at 768 x 2048, for every count
   * from 1 to 15).
   */
  public static final int MIN_GEMM_ROWS = 16;

  /** Query rows an attention matmul always gets: with fewer than 4, its result changes. */
  public static final int MIN_ATTENTION_ROWS = 4;

  /**
   * The fewest key positions invariant attention runs over: libtorch's softmax over 16 or more
   * entries gives the same bits whatever masked tail follows; over fewer, not.
   */
  public static final int MIN_KEYS = 16;

  /**
   * Key positions per probabilities-times-values matmul. Up to 384 positions, a zero tail leaves
   * the matmul's sums unchanged (measured); beyond, MKL splits the sum where the length says, so
   * longer keys run in chunks of this size whose results are added in position order.
   */
  public static final int KEY_CHUNK = 256;

  private Qwen3Model(ModelConfig config, NDManager manager, Map<String, NDArray> params,
      Map<String, TensorDtype> storedAs) {
    this.config = config;
    this.manager = manager;
    this.params = Collections.unmodifiableMap(params);
    this.storedAs = Map.copyOf(storedAs);
    this.layers = new Layer[config.numLayers()];
    for (int i = 0; i < layers.length; i++) {
      String p = "model.layers." + i + ".";
      layers[i] = new Layer(
          params.get(p + "input_layernorm.weight"),
          params.get(p + "self_attn.q_proj.weight"), params.get(p + "self_attn.q_proj.bias"),
          params.get(p + "self_attn.k_proj.weight"), params.get(p + "self_attn.k_proj.bias"),
          params.get(p + "self_attn.v_proj.weight"), params.get(p + "self_attn.v_proj.bias"),
          params.get(p + "self_attn.o_proj.weight"), params.get(p + "self_attn.o_proj.bias"),
          params.get(p + "self_attn.q_norm.weight"), params.get(p + "self_attn.k_norm.weight"),
          params.get(p + "post_attention_layernorm.weight"),
          params.get(p + "mlp.gate_proj.weight"), params.get(p + "mlp.up_proj.weight"),
          params.get(p + "mlp.down_proj.weight"));
    }
    this.embed = params.get("model.embed_tokens.weight");
    this.finalNorm = params.get("model.norm.weight");
    this.head = config.tieWordEmbeddings() ? embed : params.get("lm_head.weight");
    this.invFreq = RopeFrequencies.inverse(config);
  }

  /**
   * The tensors a checkpoint of this config must contain, in the order HF writes them, with
   * their shapes. Loading checks against this list; export writes it.
   */
  public static Map<String, long[]> expectedTensors(ModelConfig c) {
    Map<String, long[]> t = new LinkedHashMap<>();
    long h = c.hiddenSize();
    long qDim = (long) c.numHeads() * c.headDim();
    long kvDim = (long) c.numKvHeads() * c.headDim();
    t.put("model.embed_tokens.weight", new long[] {c.vocabSize(), h});
    for (int i = 0; i < c.numLayers(); i++) {
      String p = "model.layers." + i + ".";
      t.put(p + "input_layernorm.weight", new long[] {h});
      t.put(p + "self_attn.q_proj.weight", new long[] {qDim, h});
      t.put(p + "self_attn.k_proj.weight", new long[] {kvDim, h});
      t.put(p + "self_attn.v_proj.weight", new long[] {kvDim, h});
      if (c.qkvBias()) {
        t.put(p + "self_attn.q_proj.bias", new long[] {qDim});
        t.put(p + "self_attn.k_proj.bias", new long[] {kvDim});
        t.put(p + "self_attn.v_proj.bias", new long[] {kvDim});
      }
      t.put(p + "self_attn.o_proj.weight", new long[] {h, qDim});
      if (c.oBias()) {
        t.put(p + "self_attn.o_proj.bias", new long[] {h});
      }
      if (c.qkNorm()) {
        t.put(p + "self_attn.q_norm.weight", new long[] {c.headDim()});
        t.put(p + "self_attn.k_norm.weight", new long[] {c.headDim()});
      }
      t.put(p + "post_attention_layernorm.weight", new long[] {h});
      t.put(p + "mlp.gate_proj.weight", new long[] {c.intermediateSize(), h});
      t.put(p + "mlp.up_proj.weight", new long[] {c.intermediateSize(), h});
      t.put(p + "mlp.down_proj.weight", new long[] {h, c.intermediateSize()});
    }
    t.put("model.norm.weight", new long[] {h});
    if (!c.tieWordEmbeddings()) {
      t.put("lm_head.weight", new long[] {c.vocabSize(), h});
    }
    return t;
  }

  /**
   * Builds the model from host tensors, copying them into a new manager on {@code device}.
   * Every expected tensor must be present with its exact shape; extra tensors are an error too
   * (they usually mean the config does not describe the checkpoint).
   */
  public static Qwen3Model create(ModelConfig config, Map<String, HostTensor> tensors,
      Device device) {
    Map<String, long[]> expected = expectedTensors(config);
    List<String> missing = new ArrayList<>();
    for (var e : expected.entrySet()) {
      HostTensor t = tensors.get(e.getKey());
      if (t == null) {
        missing.add(e.getKey());
      } else if (!java.util.Arrays.equals(t.shape(), e.getValue())) {
        throw new IllegalArgumentException("Tensor '" + e.getKey() + "' has shape "
            + new Shape(t.shape()) + " but config.json implies " + new Shape(e.getValue())
            + "; the config does not describe these weights");
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException("Checkpoint is missing " + missing.size()
          + " tensor(s) the " + config.modelType() + " config needs, first: '" + missing.get(0)
          + "'" + (missing.size() > 1 ? " (all: " + missing + ")" : ""));
    }
    List<String> extra = tensors.keySet().stream()
        .filter(n -> !expected.containsKey(n))
        // HF sometimes stores the tied head anyway, and rotary caches from old exports.
        .filter(n -> !(n.equals("lm_head.weight") && config.tieWordEmbeddings()))
        .filter(n -> !n.endsWith("rotary_emb.inv_freq"))
        .toList();
    if (!extra.isEmpty()) {
      throw new IllegalArgumentException("Checkpoint has tensor(s) the " + config.modelType()
          + " config does not use, first: '" + extra.get(0) + "'; check attention_bias,"
          + " tie_word_embeddings and model_type in config.json");
    }
    NDManager manager = NDManager.newBaseManager(device);
    try {
      Map<String, NDArray> params = new LinkedHashMap<>();
      Map<String, TensorDtype> dtypes = new LinkedHashMap<>();
      for (String name : expected.keySet()) {
        HostTensor t = tensors.get(name);
        NDArray a = manager.create(t.values(), new Shape(t.shape()));
        a.setName(name);
        params.put(name, a);
        dtypes.put(name, t.dtype());
      }
      return new Qwen3Model(config, manager, params, dtypes);
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  public ModelConfig config() {
    return config;
  }

  /** Layer {@code i}'s weights, for {@link HostDecoder}. */
  Layer layer(int i) {
    return layers[i];
  }

  NDArray finalNormWeight() {
    return finalNorm;
  }

  /** The LM head's weight (the embedding when tied). */
  NDArray headWeight() {
    return head;
  }

  /** RoPE inverse frequencies, one per pair of head dimensions. */
  double[] ropeInverseFrequencies() {
    return invFreq.clone();
  }

  public Device device() {
    return manager.getDevice();
  }

  /** Every weight by its HF name (the learner's optimizer updates these in place). */
  public Map<String, NDArray> parameters() {
    return params;
  }

  /** A scratch manager for one forward pass; close it to free the activations. */
  public NDManager newWorkManager() {
    return manager.newSubManager();
  }

  /**
   * Counts in-place changes of the weights. Whoever updates them in place (an optimizer step)
   * calls {@link #weightsChanged()}; the generation engine then drops its prefix cache, whose
   * keys and values were computed with the old weights.
   */
  public long weightsVersion() {
    return weightsVersion.get();
  }

  public void weightsChanged() {
    weightsVersion.incrementAndGet();
  }

  /** Turns on (or off) gradient recording for every weight, for the learner. */
  public void setTrainable(boolean trainable) {
    params.values().forEach(p -> p.setRequiresGradient(trainable));
  }

  /** The weights as host tensors in their stored dtypes, for export. */
  public List<HostTensor> toHostTensors() {
    List<HostTensor> out = new ArrayList<>();
    for (var e : params.entrySet()) {
      NDArray a = e.getValue();
      out.add(new HostTensor(e.getKey(), storedAs.getOrDefault(e.getKey(), TensorDtype.F32),
          a.getShape().getShape(), a.toFloatArray()));
    }
    return out;
  }

  /**
   * The forward pass up to the final norm.
   *
   * @param tokens token ids (B, T), int64, owned by the caller's work manager
   * @param positions the position of every token, row-major (B * T), for RoPE
   * @param kv where keys and values come from (the tokens alone, or a cache)
   * @return normalised hidden states (B, T, hidden), in the tokens' manager
   */
  public NDArray hidden(NDArray tokens, long[] positions, KvSource kv) {
    return hidden(tokens, positions, kv, TORCH);
  }

  /** {@link #hidden(NDArray, long[], KvSource)} with the weights multiplied by {@code linear}. */
  public NDArray hidden(NDArray tokens, long[] positions, KvSource kv, Linear linear) {
    NDManager work = tokens.getManager();
    long b = tokens.getShape().get(0);
    long t = tokens.getShape().get(1);
    NDArray[] cosSin = ropeTables(work, positions, b, t);            // 2 x (B, 1, T, D)

    NDArray x = embed(tokens);                                       // (B, T, hidden)
    for (int i = 0; i < layers.length; i++) {
      // Each layer's activations live in a scope freed when the layer is done, so a long
      // prefill holds one layer's attention scores at a time, not all of them. (Autograd keeps
      // its own references to what backward needs, so closing the handles is safe in training.)
      NDManager scope = work.newSubManager();
      x.attach(scope);
      NDArray[] qkv = queryKeyValue(i, x, cosSin, linear);
      NDArray attn = kv.attention(this, i, qkv[0], qkv[1], qkv[2]);   // (B, T, nH * D)
      x = afterAttention(i, x, attn, linear);                        // (B, T, hidden)
      x.attach(work);
      scope.close();
    }
    return finalNorm(x);
  }

  /** Token embeddings (B, T) -> (B, T, hidden), in the tokens' manager. */
  public NDArray embed(NDArray tokens) {
    return embed.get(tokens.getManager(), new NDIndex("{}", tokens));
  }

  /**
   * The attention inputs of one layer for its input x (B, T, hidden): pre-norm, project,
   * per-head q/k norm, rotate. Returns q (B, nH, T, D) and k, v (B, nKv, T, D).
   */
  public NDArray[] queryKeyValue(int layer, NDArray x, NDArray[] cosSin) {
    return queryKeyValue(layer, x, cosSin, TORCH);
  }

  private NDArray[] queryKeyValue(int layer, NDArray x, NDArray[] cosSin, Linear linear) {
    long b = x.getShape().get(0);
    long t = x.getShape().get(1);
    int d = config.headDim();
    Layer l = layers[layer];
    NDArray h = rmsNorm(x, l.inputNorm);                             // (B, T, hidden)
    NDArray q = linear.linear(h, l.q, l.qBias).reshape(b, t, config.numHeads(), d);
    NDArray k = linear.linear(h, l.k, l.kBias).reshape(b, t, config.numKvHeads(), d);
    NDArray v = linear.linear(h, l.v, l.vBias).reshape(b, t, config.numKvHeads(), d);
    if (config.qkNorm()) {
      q = rmsNorm(q, l.qNorm);                                       // norm over headDim
      k = rmsNorm(k, l.kNorm);
    }
    q = rotate(q.transpose(0, 2, 1, 3), cosSin);                     // (B, nH, T, D)
    k = rotate(k.transpose(0, 2, 1, 3), cosSin);                     // (B, nKv, T, D)
    return new NDArray[] {q, k, v.transpose(0, 2, 1, 3)};            // v: (B, nKv, T, D)
  }

  /**
   * Grouped-query attention of queries q (B, nH, Tq, D) over keys and values (B, nKv, S, D)
   * with an additive mask broadcastable to (B, nKv, g, Tq, S); returns (B, Tq, nH * D). The g
   * query heads that share a key head are stacked along the time axis, so K/V are never
   * copied per query head; 3-D batched matmuls (bmm) because DJL's N-D matMul costs
   * milliseconds even for tiny decode shapes.
   */
  public NDArray attention(NDArray q, NDArray keys, NDArray values, NDArray mask) {
    long b = q.getShape().get(0);
    long t = q.getShape().get(2);
    long s = keys.getShape().get(2);
    int nH = config.numHeads();
    int nKv = config.numKvHeads();
    int g = config.groupSize();
    int d = config.headDim();
    float scale = (float) (1.0 / Math.sqrt(d));
    long bk = b * nKv;
    NDArray qg = q.mul(TorchScalar.like(q, scale)).reshape(bk, (long) g * t, d);              // (B*nKv, g*T, D)
    NDArray k = keys.reshape(bk, s, d).transpose(0, 2, 1);              // (B*nKv, D, S)
    NDArray scores = qg.batchMatMul(k)                                   // (B*nKv, g*T, S)
        .reshape(b, nKv, g, t, s).add(mask);                             // (B, nKv, g, T, S)
    NDArray probs = softmaxLastAxis(scores).reshape(bk, (long) g * t, s);
    return probs.batchMatMul(values.reshape(bk, s, d))                  // (B*nKv, g*T, D)
        .reshape(b, nH, t, d).transpose(0, 2, 1, 3)                      // (B, T, nH, D)
        .reshape(b, t, (long) nH * d);
  }

  /**
   * The same attention, computed so that a query row's result does not depend on the other rows
   * of its batch nor on how far its keys are padded: at least {@link #MIN_ATTENTION_ROWS} query
   * rows per matmul (zero rows added), libtorch's own softmax (its sums ignore a masked tail of
   * any length once there are {@link #MIN_KEYS} keys), and the values weighted in chunks of
   * {@link #KEY_CHUNK} positions whose results are summed in order, so that masked positions,
   * whether they are the row's causal future or its batch's padding, only ever add exact zeros.
   * The keys' length S must be {@link #invariantKeyLength} of what the rows need.
   */
  public NDArray invariantAttention(NDArray q, NDArray keys, NDArray values, NDArray mask) {
    long b = q.getShape().get(0);
    long t = q.getShape().get(2);
    long s = keys.getShape().get(2);
    int nH = config.numHeads();
    int nKv = config.numKvHeads();
    int g = config.groupSize();
    int d = config.headDim();
    if (s != invariantKeyLength(s)) {
      throw new IllegalArgumentException("invariant attention over " + s + " key positions; it"
          + " needs at least " + MIN_KEYS + " and, above " + KEY_CHUNK + ", a multiple of it");
    }
    float scale = (float) (1.0 / Math.sqrt(d));
    long bk = b * nKv;
    long rows = (long) g * t;
    long pad = Math.max(0, MIN_ATTENTION_ROWS - rows);
    NDArray qg = padRows(q.mul(TorchScalar.like(q, scale)).reshape(bk, rows, d), pad);        // (B*nKv, m, D)
    NDArray scores = qg.batchMatMul(keys.reshape(bk, s, d).transpose(0, 2, 1));
    if (pad > 0) {
      scores = scores.get(new NDIndex(":, 0:{}", rows));
    }
    NDArray probs = scores.reshape(b, nKv, g, t, s).add(mask).softmax(-1)
        .reshape(bk, rows, s);
    NDArray out = weightedValues(padRows(probs, pad), values.reshape(bk, s, d));
    if (pad > 0) {
      out = out.get(new NDIndex(":, 0:{}", rows));
    }
    return out.reshape(b, nH, t, d).transpose(0, 2, 1, 3).reshape(b, t, (long) nH * d);
  }

  /** The key length invariant attention needs to cover {@code positions} keys. */
  public static long invariantKeyLength(long positions) {
    long s = Math.max(positions, MIN_KEYS);
    return s <= KEY_CHUNK ? s : (s + KEY_CHUNK - 1) / KEY_CHUNK * KEY_CHUNK;
  }

  /** probs (n, m, S) times values (n, S, D), in chunks of KEY_CHUNK positions summed in order. */
  private static NDArray weightedValues(NDArray probs, NDArray values) {
    long n = probs.getShape().get(0);
    long m = probs.getShape().get(1);
    long s = probs.getShape().get(2);
    long d = values.getShape().get(2);
    if (s <= KEY_CHUNK) {
      return probs.batchMatMul(values);
    }
    long c = s / KEY_CHUNK;
    NDArray p = probs.reshape(n, m, c, KEY_CHUNK).transpose(0, 2, 1, 3)
        .reshape(n * c, m, KEY_CHUNK);
    NDArray partial = p.batchMatMul(values.reshape(n * c, KEY_CHUNK, d)).reshape(n, c, m, d);
    // cumsum adds in position order (a zero chunk changes nothing); its last entry is the sum.
    return partial.cumSum(1).get(new NDIndex(":, -1"));
  }

  /** x (n, r, k) with {@code pad} zero rows appended along axis 1. */
  private static NDArray padRows(NDArray x, long pad) {
    if (pad == 0) {
      return x;
    }
    Shape s = x.getShape();
    return x.concat(x.getManager().zeros(new Shape(s.get(0), pad, s.get(2)), x.getDataType()), 1);
  }

  /** The rest of a layer once attention is known: x + o(attn), then x + SwiGLU(RMSNorm(x)). */
  public NDArray afterAttention(int layer, NDArray x, NDArray attn) {
    return afterAttention(layer, x, attn, TORCH);
  }

  private NDArray afterAttention(int layer, NDArray x, NDArray attn, Linear linear) {
    Layer l = layers[layer];
    x = x.add(linear.linear(attn, l.o, l.oBias));                    // (B, T, hidden)
    NDArray m = rmsNorm(x, l.postNorm);
    NDArray gate = linear.linear(m, l.gate, null);                   // (B, T, inter)
    NDArray act = gate.mul(Activation.sigmoid(gate)).mul(linear.linear(m, l.up, null));
    return x.add(linear.linear(act, l.down, null));                  // (B, T, hidden)
  }

  /** The norm after the last layer, before the LM head. */
  public NDArray finalNorm(NDArray x) {
    return rmsNorm(x, finalNorm);
  }

  /** Logits over the vocabulary for hidden states (..., hidden) -> (..., vocab). */
  public NDArray logits(NDArray hidden) {
    return logits(hidden, TORCH);
  }

  public NDArray logits(NDArray hidden, Linear linear) {
    return linear.linear(hidden, head, null);
  }

  /** Full causal forward, no cache: logits (B, T, vocab) for right-padded tokens (B, T). */
  public NDArray forward(NDArray tokens) {
    long b = tokens.getShape().get(0);
    long t = tokens.getShape().get(1);
    long[] positions = new long[(int) (b * t)];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = i % t;
    }
    return logits(hidden(tokens, positions, new CausalSource(tokens.getManager(), t)));
  }

  /**
   * Keys and values from the step itself, with a causal mask. With right padding a real token
   * only ever sees earlier real tokens, so no key-padding mask is needed; the outputs at padded
   * positions are garbage that callers mask out.
   */
  public static final class CausalSource implements KvSource {
    private final NDArray mask;

    public CausalSource(NDManager work, long t) {
      NDArray idx = work.arange(t);                                  // (T,)
      NDArray future = idx.reshape(1, t).gt(idx.reshape(t, 1));      // (T, T): key j > query i
      this.mask = future.toType(DataType.FLOAT32, false).mul(MASKED).reshape(1, 1, 1, t, t);
    }

    @Override
    public NDArray attention(Qwen3Model model, int layer, NDArray q, NDArray keys,
        NDArray values) {
      return model.attention(q, keys, values, mask);
    }

    /** The additive causal mask, broadcastable to (B, kvHeads, group, T, T). */
    public NDArray mask() {
      return mask;
    }
  }

  /** How a forward computes x W^T + b, W in HF's (out, in) layout; bias may be null. */
  @FunctionalInterface
  public interface Linear {
    NDArray linear(NDArray x, NDArray weight, NDArray bias);
  }

  /** libtorch's linear, padded as {@link #torchLinear} says. */
  public static final Linear TORCH = Qwen3Model::torchLinear;

  /**
   * x W^T + b with W in HF's (out, in) layout; the result lives in x's manager. Fewer than
   * {@link #MIN_GEMM_ROWS} rows are padded with zero rows, so a row gets the same bits in a
   * decode step of 1, 3 or 64 sequences and in a prefill chunk.
   */
  private static NDArray torchLinear(NDArray x, NDArray weight, NDArray bias) {
    Shape shape = x.getShape();
    long in = shape.getLastDimension();
    long rows = shape.size() / in;
    if (rows >= MIN_GEMM_ROWS) {
      return x.getNDArrayInternal().linear(x, weight, bias).singletonOrThrow();
    }
    NDArray padded = x.reshape(rows, in).concat(
        x.getManager().zeros(new Shape(MIN_GEMM_ROWS - rows, in), x.getDataType()), 0);
    NDArray out = padded.getNDArrayInternal().linear(padded, weight, bias).singletonOrThrow();
    return out.get(new NDIndex("0:{}", rows))
        .reshape(shape.slice(0, shape.dimension() - 1).add(weight.getShape().get(0)));
  }

  /**
   * Softmax over the last axis. libtorch's CPU softmax always fans out to its thread pool, which
   * for a decode step's few hundred scores costs milliseconds whenever the cores are busy with
   * other work (measured: 2-6 ms vs 0.03 ms on a shared 2-core machine); small inputs take the
   * composed form, whose element-wise ops and reductions stay on the calling thread.
   */
  private static NDArray softmaxLastAxis(NDArray x) {
    if (x.size() >= SMALL_SOFTMAX) {
      return x.softmax(-1);
    }
    int last = x.getShape().dimension() - 1;
    NDArray e = x.sub(x.max(new int[] {last}, true)).exp();
    return e.div(e.sum(new int[] {last}, true));
  }

  /** libtorch's grain size for element-wise parallelism: below it, ops run inline. */
  private static final long SMALL_SOFTMAX = 32_768;

  /** RMSNorm over the last axis: x / sqrt(mean(x^2) + eps) * w. */
  private NDArray rmsNorm(NDArray x, NDArray weight) {
    NDArray rms = x.square().mean(new int[] {-1}, true).add(config.rmsNormEps()).sqrt();
    return x.div(rms).mul(weight);
  }

  /** cos and sin tables for the given positions, each (B, 1, T, D), halves repeated as HF does. */
  public NDArray[] ropeTables(NDManager work, long[] positions, long b, long t) {
    int d = config.headDim();
    int half = d / 2;
    float[] cos = new float[positions.length * d];
    float[] sin = new float[positions.length * d];
    for (int p = 0; p < positions.length; p++) {
      double pos = positions[p];
      for (int i = 0; i < half; i++) {
        double angle = pos * invFreq[i];
        float c = (float) Math.cos(angle);
        float s = (float) Math.sin(angle);
        cos[p * d + i] = c;
        cos[p * d + i + half] = c;
        sin[p * d + i] = s;
        sin[p * d + i + half] = s;
      }
    }
    Shape shape = new Shape(b, 1, t, d);
    return new NDArray[] {work.create(cos, shape), work.create(sin, shape)};
  }

  /** x * cos + rotate_half(x) * sin, where rotate_half(x1, x2) = (-x2, x1). */
  private static NDArray rotate(NDArray x, NDArray[] cosSin) {
    NDList halves = x.split(2, 3);  // axis 3 = headDim; DJL's split rejects -1
    NDArray rotated = halves.get(1).neg().concat(halves.get(0), 3);
    return x.mul(cosSin[0]).add(rotated.mul(cosSin[1]));
  }

  @Override
  public void close() {
    manager.close();
  }
}
