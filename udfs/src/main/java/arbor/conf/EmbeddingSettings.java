package arbor.conf;

import java.io.Serializable;

/**
 * The sentence-embedding model of title + abstract.
 *
 * @param model {@code all-minilm-l6-v2-q} (the quantised ONNX MiniLM inside the jar) or
 *     {@code onnx} (any sentence-transformers ONNX export at {@code onnxPath} with its
 *     {@code tokenizer.json} at {@code tokenizerPath}, mean pooling)
 * @param maxChars title + abstract is cut to this many characters before tokenising; MiniLM
 *     reads 256 word pieces at most anyway
 * @param papersPerTask papers embedded per Spark task
 */
public record EmbeddingSettings(
    String model,
    String onnxPath,
    String tokenizerPath,
    int maxChars,
    int papersPerTask) implements Serializable {}
