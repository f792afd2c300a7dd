package arbor.policy.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Set;

/**
 * The shape of a decoder of the Qwen3 family, as read from a Hugging Face {@code config.json}.
 *
 * <p>Qwen2, Llama and Mistral differ from Qwen3 only by the flags below, so one model class
 * serves them all. Non-obvious defaults:
 *
 * <ul>
 *   <li>{@code headDim} is explicit in Qwen3 (0.6B: 16 heads of 128 over a hidden size of 1024),
 *       so {@code numHeads * headDim} need not equal {@code hiddenSize}; older configs omit it and
 *       mean {@code hiddenSize / numHeads}.
 *   <li>{@code qkvBias}: Qwen2 always has a bias on q/k/v (and none on o); Qwen3 and Llama read
 *       {@code attention_bias}, which puts a bias on q, k, v and o.
 *   <li>{@code qkNorm}: only Qwen3 normalises each query and key head (RMSNorm over headDim)
 *       before RoPE.
 * </ul>
 *
 * @param modelType the HF {@code model_type}: qwen3, qwen2, llama or mistral
 * @param eosTokenIds every id that ends generation ({@code eos_token_id} may be a list)
 */
public record ModelConfig(
    String modelType,
    int vocabSize,
    int hiddenSize,
    int intermediateSize,
    int numLayers,
    int numHeads,
    int numKvHeads,
    int headDim,
    double rmsNormEps,
    double ropeTheta,
    RopeScaling ropeScaling,
    int maxPositionEmbeddings,
    boolean tieWordEmbeddings,
    boolean qkvBias,
    boolean oBias,
    boolean qkNorm,
    List<Integer> eosTokenIds,
    String torchDtype) {

  /** The families this model class implements, by HF {@code model_type}. */
  public static final Set<String> SUPPORTED = Set.of("qwen3", "qwen2", "llama", "mistral");

  private static final ObjectMapper JSON = new ObjectMapper();

  public ModelConfig {
    if (!SUPPORTED.contains(modelType)) {
      throw new IllegalArgumentException("Unsupported architecture: model_type '" + modelType
          + "'. Arbor's decoder implements " + SUPPORTED + "; convert the checkpoint or add the"
          + " family to arbor.policy.model.");
    }
    require(vocabSize > 0, "vocab_size", vocabSize);
    require(hiddenSize > 0, "hidden_size", hiddenSize);
    require(intermediateSize > 0, "intermediate_size", intermediateSize);
    require(numLayers > 0, "num_hidden_layers", numLayers);
    require(numHeads > 0, "num_attention_heads", numHeads);
    require(numKvHeads > 0 && numHeads % numKvHeads == 0, "num_key_value_heads (must divide"
        + " num_attention_heads=" + numHeads + ")", numKvHeads);
    require(headDim > 0 && headDim % 2 == 0, "head_dim (must be even for RoPE)", headDim);
    eosTokenIds = List.copyOf(eosTokenIds);
  }

  private static void require(boolean ok, String key, int value) {
    if (!ok) {
      throw new IllegalArgumentException("config.json: invalid " + key + " = " + value);
    }
  }

  /**
   * Weights that take part in a matmul per token: every layer's projections and MLP, and the LM
   * head (the embedding lookup is not a matmul, unless tied to the head).
   */
  public long matmulParameters() {
    long h = hiddenSize;
    long q = (long) numHeads * headDim;
    long kv = (long) numKvHeads * headDim;
    long perLayer = h * q + 2 * h * kv + q * h + 3 * h * intermediateSize;
    return numLayers * perLayer + (long) vocabSize * h;
  }

  /**
   * Every weight but the norms' (and biases'): the layers' projections and MLP, the embedding,
   * and the LM head when it is not tied to the embedding.
   */
  public long parameters() {
    long embedding = (long) vocabSize * hiddenSize;
    return matmulParameters() + (tieWordEmbeddings ? 0 : embedding);
  }

  /** Query heads that share one key/value head. */
  public int groupSize() {
    return numHeads / numKvHeads;
  }

  /** A Qwen3 config with the usual defaults; the tiny-model factory and tests start here. */
  public static ModelConfig qwen3(int vocab, int hidden, int intermediate, int layers, int heads,
      int kvHeads, int headDim, boolean tied) {
    return new ModelConfig("qwen3", vocab, hidden, intermediate, layers, heads, kvHeads, headDim,
        1e-6, 1_000_000.0, null, 40960, tied, false, false, true, List.of(), "float32");
  }

  public ModelConfig withEos(List<Integer> eos) {
    return new ModelConfig(modelType, vocabSize, hiddenSize, intermediateSize, numLayers, numHeads,
        numKvHeads, headDim, rmsNormEps, ropeTheta, ropeScaling, maxPositionEmbeddings,
        tieWordEmbeddings, qkvBias, oBias, qkNorm, eos, torchDtype);
  }

  public ModelConfig withTorchDtype(String dtype) {
    return new ModelConfig(modelType, vocabSize, hiddenSize, intermediateSize, numLayers, numHeads,
        numKvHeads, headDim, rmsNormEps, ropeTheta, ropeScaling, maxPositionEmbeddings,
        tieWordEmbeddings, qkvBias, oBias, qkNorm, eosTokenIds, dtype);
  }

  public ModelConfig withFamily(String type, boolean qkv, boolean o, boolean norm) {
    return new ModelConfig(type, vocabSize, hiddenSize, intermediateSize, numLayers, numHeads,
        numKvHeads, headDim, rmsNormEps, ropeTheta, ropeScaling, maxPositionEmbeddings,
        tieWordEmbeddings, qkv, o, norm, eosTokenIds, torchDtype);
  }

  public ModelConfig withRope(double theta, RopeScaling scaling) {
    return new ModelConfig(modelType, vocabSize, hiddenSize, intermediateSize, numLayers, numHeads,
        numKvHeads, headDim, rmsNormEps, theta, scaling, maxPositionEmbeddings,
        tieWordEmbeddings, qkvBias, oBias, qkNorm, eosTokenIds, torchDtype);
  }

  /**
   * RoPE frequency scaling. {@code linear} divides positions by {@code factor}; {@code llama3}
   * stretches only the low frequencies (Llama 3.1's rule). Other HF rope types are rejected at
   * parse time rather than silently ignored.
   */
  public record RopeScaling(String type, double factor, double lowFreqFactor,
      double highFreqFactor, int originalMaxPositions) {
    static final Set<String> SUPPORTED = Set.of("linear", "llama3");
  }

  /** Parses a HF {@code config.json}; errors name the key and how to fix it. */
  public static ModelConfig parse(String json) {
    JsonNode n;
    try {
      n = JSON.readTree(json);
    } catch (Exception e) {
      throw new IllegalArgumentException("config.json is not valid JSON: " + e.getMessage(), e);
    }
    String type = text(n, "model_type", null);
    if (type == null) {
      throw new IllegalArgumentException("config.json has no 'model_type'; expected one of "
          + SUPPORTED);
    }
    if (!SUPPORTED.contains(type)) {
      throw new IllegalArgumentException("Unsupported architecture: model_type '" + type
          + "' (architectures " + n.path("architectures") + "). Arbor's decoder implements "
          + SUPPORTED + ".");
    }
    String act = text(n, "hidden_act", "silu");
    if (!act.equals("silu")) {
      throw new IllegalArgumentException("config.json: hidden_act '" + act
          + "' is not supported; the SwiGLU MLP needs 'silu'");
    }
    if (n.path("use_sliding_window").asBoolean(false)) {
      throw new IllegalArgumentException("config.json: use_sliding_window=true is not supported;"
          + " Arbor attends over the full context");
    }
    int hidden = integer(n, "hidden_size");
    int heads = integer(n, "num_attention_heads");
    int headDim = n.hasNonNull("head_dim") ? n.get("head_dim").asInt() : hidden / heads;
    boolean attentionBias = n.path("attention_bias").asBoolean(false);
    boolean qwen2 = type.equals("qwen2");
    return new ModelConfig(type,
        integer(n, "vocab_size"),
        hidden,
        integer(n, "intermediate_size"),
        integer(n, "num_hidden_layers"),
        heads,
        n.hasNonNull("num_key_value_heads") ? n.get("num_key_value_heads").asInt() : heads,
        headDim,
        n.path("rms_norm_eps").asDouble(1e-6),
        n.path("rope_theta").asDouble(10_000.0),
        ropeScaling(n.get("rope_scaling")),
        n.path("max_position_embeddings").asInt(32768),
        n.path("tie_word_embeddings").asBoolean(false),
        qwen2 || attentionBias,
        !qwen2 && attentionBias,
        type.equals("qwen3"),
        eos(n.get("eos_token_id")),
        text(n, "torch_dtype", text(n, "dtype", "float32")));
  }

  private static RopeScaling ropeScaling(JsonNode r) {
    if (r == null || r.isNull()) {
      return null;
    }
    String type = text(r, "rope_type", text(r, "type", "default"));
    if (type.equals("default")) {
      return null;
    }
    if (!RopeScaling.SUPPORTED.contains(type)) {
      throw new IllegalArgumentException("config.json: rope_scaling type '" + type
          + "' is not supported; supported: " + RopeScaling.SUPPORTED + " (or none)");
    }
    return new RopeScaling(type, r.path("factor").asDouble(1.0),
        r.path("low_freq_factor").asDouble(1.0), r.path("high_freq_factor").asDouble(4.0),
        r.path("original_max_position_embeddings").asInt(8192));
  }

  private static List<Integer> eos(JsonNode e) {
    if (e == null || e.isNull()) {
      return List.of();
    }
    if (e.isArray()) {
      return java.util.stream.StreamSupport.stream(e.spliterator(), false)
          .map(JsonNode::asInt).toList();
    }
    return List.of(e.asInt());
  }

  private static int integer(JsonNode n, String key) {
    JsonNode v = n.get(key);
    if (v == null || !v.canConvertToInt()) {
      throw new IllegalArgumentException("config.json is missing the integer key '" + key + "'");
    }
    return v.asInt();
  }

  private static String text(JsonNode n, String key, String fallback) {
    JsonNode v = n.get(key);
    return v == null || v.isNull() ? fallback : v.asText();
  }

  /** The HF {@code config.json} that {@link #parse} reads back to an equal record. */
  public String toJson() {
    ObjectNode n = JSON.createObjectNode();
    n.putArray("architectures").add(switch (modelType) {
      case "qwen3" -> "Qwen3ForCausalLM";
      case "qwen2" -> "Qwen2ForCausalLM";
      case "mistral" -> "MistralForCausalLM";
      default -> "LlamaForCausalLM";
    });
    n.put("model_type", modelType);
    n.put("vocab_size", vocabSize);
    n.put("hidden_size", hiddenSize);
    n.put("intermediate_size", intermediateSize);
    n.put("num_hidden_layers", numLayers);
    n.put("num_attention_heads", numHeads);
    n.put("num_key_value_heads", numKvHeads);
    n.put("head_dim", headDim);
    n.put("hidden_act", "silu");
    n.put("rms_norm_eps", rmsNormEps);
    n.put("rope_theta", ropeTheta);
    if (ropeScaling != null) {
      ObjectNode r = n.putObject("rope_scaling");
      r.put("rope_type", ropeScaling.type());
      r.put("factor", ropeScaling.factor());
      if (ropeScaling.type().equals("llama3")) {
        r.put("low_freq_factor", ropeScaling.lowFreqFactor());
        r.put("high_freq_factor", ropeScaling.highFreqFactor());
        r.put("original_max_position_embeddings", ropeScaling.originalMaxPositions());
      }
    } else {
      n.putNull("rope_scaling");
    }
    n.put("max_position_embeddings", maxPositionEmbeddings);
    n.put("tie_word_embeddings", tieWordEmbeddings);
    // Qwen2 has no attention_bias key (its q/k/v bias is unconditional).
    if (!modelType.equals("qwen2")) {
      n.put("attention_bias", qkvBias);
    }
    if (eosTokenIds.size() == 1) {
      n.put("eos_token_id", eosTokenIds.get(0));
    } else if (!eosTokenIds.isEmpty()) {
      ArrayNode a = n.putArray("eos_token_id");
      eosTokenIds.forEach(a::add);
    }
    n.put("torch_dtype", torchDtype);
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
