package arbor.policy.model;

import arbor.policy.files.TensorDtype;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Small random models as HF folders for tests: a {@link ScratchModel} with a tokenizer of the
 * test's choice (the byte-level one needs no download). Shared with the other modules through
 * the udfs test-jar.
 */
public final class TinyModels {

  private TinyModels() {}

  /** Where the tokenizer of a tiny model comes from. */
  public sealed interface TokenizerSource {
    /** The 261-token byte-level tokenizer of {@link ByteLevelTokenizerFiles}. */
    record ByteLevel() implements TokenizerSource {}

    /** tokenizer.json and tokenizer_config.json copied from a folder (e.g. Qwen3's). */
    record Folder(Path dir) implements TokenizerSource {}
  }

  /** {@link ScratchModel#write} with the tokenizer of {@code tokenizer}. */
  public static ModelConfig write(ModelConfig config, long seed, TokenizerSource tokenizer,
      TensorDtype dtype, Path dir) throws IOException {
    Path from = switch (tokenizer) {
      case TokenizerSource.ByteLevel b -> {
        ByteLevelTokenizerFiles.write(dir);
        yield dir;
      }
      case TokenizerSource.Folder f -> f.dir();
    };
    return ScratchModel.write(config, seed, dtype, from, dir);
  }
}
