package arbor.synthesis;

import arbor.conf.EmbeddingSettings;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * A sentence-embedding model that returns unit vectors. One instance per model per JVM
 * ({@link #forSettings}): executors load the ONNX model once, not once per task.
 */
public final class Embedder {
  public static final String MINILM_Q = "all-minilm-l6-v2-q";
  public static final String ONNX = "onnx";

  private static final Map<String, Embedder> LOADED = new ConcurrentHashMap<>();
  // Each Spark task already runs on its own core; the model's own thread pool would oversubscribe them.
  private static final Executor CALLER = Runnable::run;

  private final String name;
  private final EmbeddingModel model;

  private Embedder(String name, EmbeddingModel model) {
    this.name = name;
    this.model = model;
  }

  /** The JVM's instance of the configured model, loaded on first use. */
  public static Embedder forSettings(EmbeddingSettings settings) {
    String key = modelName(settings);
    return LOADED.computeIfAbsent(key, k -> new Embedder(k, load(settings)));
  }

  /** The name stored beside every vector: the built-in name, or {@code onnx:<path>}. */
  public static String modelName(EmbeddingSettings settings) {
    return switch (settings.model()) {
      case MINILM_Q -> MINILM_Q;
      case ONNX -> ONNX + ":" + settings.onnxPath();
      default -> throw new IllegalArgumentException("synthesis.embedding.model: unknown model '" + settings.model()
          + "'; use " + MINILM_Q + " (built in) or " + ONNX + " (with onnx_path and tokenizer_path)");
    };
  }

  private static EmbeddingModel load(EmbeddingSettings settings) {
    if (settings.model().equals(MINILM_Q)) return new AllMiniLmL6V2QuantizedEmbeddingModel(CALLER);
    Path onnx = Path.of(settings.onnxPath());
    Path tokenizer = Path.of(settings.tokenizerPath());
    if (!Files.isRegularFile(onnx) || !Files.isRegularFile(tokenizer)) {
      throw new IllegalArgumentException("synthesis.embedding: model 'onnx' needs onnx_path and tokenizer_path to be files; got '"
          + onnx + "' and '" + tokenizer + "'");
    }
    return new OnnxEmbeddingModel(onnx, tokenizer, PoolingMode.MEAN, CALLER);
  }

  public String name() {
    return name;
  }

  /** Unit vectors of {@code texts}, in order. */
  public List<float[]> embed(List<String> texts) {
    List<TextSegment> segments = texts.stream().map(t -> TextSegment.from(t.isBlank() ? "(empty)" : t)).toList();
    List<Embedding> embeddings = model.embedAll(segments).content();
    List<float[]> out = new ArrayList<>(embeddings.size());
    for (Embedding e : embeddings) out.add(Vectors.normalised(e.vector()));
    return out;
  }
}
