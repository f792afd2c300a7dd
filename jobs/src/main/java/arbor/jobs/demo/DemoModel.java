package arbor.jobs.demo;

import arbor.policy.model.HfModelFolder;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.TensorDtype;
import arbor.policy.model.TinyModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The demo's student: a tiny random model of the real Qwen3 architecture with the real Qwen3
 * tokenizer, written once as a Hugging Face folder. No registry serves pretrained weights here,
 * and a real checkpoint would not train on two CPU cores in minutes; this one shows every stage
 * working end to end, not a capable policy.
 */
final class DemoModel {
  private DemoModel() {}

  /** Qwen3's vocabulary (151,936 ids: the tokenizer's 151,669 rounded up as the family does). */
  static final ModelConfig CONFIG = ModelConfig.qwen3(151_936, 64, 128, 2, 4, 2, 16, true);
  static final long SEED = 20261201L;

  /** Writes the model into {@code dir} unless it is already there; returns whether it wrote it. */
  static boolean ensure(Path dir, Path qwen3Tokenizer) throws IOException {
    if (Files.isRegularFile(dir.resolve(HfModelFolder.CONFIG))) {
      return false;
    }
    Path partial = dir.resolveSibling(dir.getFileName() + ".partial");
    TinyModels.write(CONFIG, SEED, new TinyModels.TokenizerSource.Folder(qwen3Tokenizer), TensorDtype.F32, partial);
    // Renamed whole, so a demo killed while writing leaves no half model that looks complete.
    Files.move(partial, dir, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return true;
  }
}
