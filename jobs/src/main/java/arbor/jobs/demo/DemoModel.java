package arbor.jobs.demo;

import arbor.conf.SetupSettings;
import arbor.policy.files.TensorDtype;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.ScratchModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The demo's student: a random model of the real Qwen3 architecture with Qwen3's tokenizer,
 * written once as a Hugging Face folder. No registry serves pretrained weights here, so it learns
 * from scratch; its shape is {@code setup.student}. With {@code trim_vocabulary} the tokenizer
 * keeps only the tokens of the texts the student will see ({@link StudentVocabulary}), which
 * moves its parameters from a 151,936-row embedding into its layers.
 */
public final class DemoModel {
  private DemoModel() {}

  /** Qwen3's vocabulary (151,936 ids: the tokenizer's 151,669 rounded up as the family does). */
  static final int QWEN3_VOCAB = 151_936;

  /** What was written (or found): the folder's config and whether this call wrote it. */
  public record Written(ModelConfig config, boolean made) {
    public String description() {
      long embedding = (long) config.vocabSize() * config.hiddenSize();
      long layers = config.matmulParameters() - embedding;
      return String.format(Locale.ROOT, "hidden %d, %d layers, %d heads, %,d-token vocabulary: %,d parameters,"
          + " %,d in the layers' matmuls and %,d in the %s embedding", config.hiddenSize(), config.numLayers(),
          config.numHeads(), config.vocabSize(), config.parameters(), layers, embedding,
          config.tieWordEmbeddings() ? "tied" : "untied (as many again in the LM head)");
    }
  }

  /**
   * Writes the student into {@code dir} unless it is already there.
   *
   * @param texts what the student will read and write (only asked for when trimming)
   */
  public static Written ensure(Path dir, Path qwen3Tokenizer, SetupSettings.Student shape, Supplier<Iterable<String>> texts)
      throws IOException {
    if (Files.isRegularFile(dir.resolve(HfModelFolder.CONFIG))) {
      return new Written(ModelConfig.parse(Files.readString(dir.resolve(HfModelFolder.CONFIG))), false);
    }
    Path partial = dir.resolveSibling(dir.getFileName() + ".partial");
    Path tokenizer = qwen3Tokenizer;
    int vocab = QWEN3_VOCAB;
    if (shape.trimVocabulary()) {
      tokenizer = dir.resolveSibling(dir.getFileName() + ".tokenizer");
      StudentVocabulary.Trimmed trimmed = StudentVocabulary.write(qwen3Tokenizer, texts.get(), tokenizer);
      // Rounded up to a multiple of 64, as the Qwen family pads its embedding.
      vocab = (trimmed.vocabSize() + 63) / 64 * 64;
    }
    ModelConfig config = ScratchModel.write(ModelConfig.qwen3(vocab, shape.hidden(), shape.intermediate(),
        shape.layers(), shape.heads(), shape.kvHeads(), shape.headDim(), true), shape.seed(), TensorDtype.F32,
        tokenizer, partial);
    // Renamed whole, so a demo killed while writing leaves no half model that looks complete.
    Files.move(partial, dir, StandardCopyOption.ATOMIC_MOVE);
    return new Written(config, true);
  }
}
