package arbor.jobs.bench.rlm;

import arbor.inputs.MissingInput;
import java.nio.file.Files;
import java.nio.file.Path;

/** The QASPER folder the QASPER benchmarks read (papers/*.txt and questions_train.json), checked before use. */
public final class QasperDir {
  /** Where the benchmarks look when not given {@code --qasper DIR}: the shared data beside the checkout. */
  public static final String DEFAULT = "../shared/data/qasper-train";

  private QasperDir() {}

  /** {@code --qasper}, or the default folder, once it holds both parts of the data set. */
  public static Path require(java.util.Optional<String> option) {
    return require(Path.of(option.orElse(DEFAULT)));
  }

  public static Path require(Path dir) {
    if (!Files.isDirectory(dir.resolve("papers")) || !Files.isRegularFile(dir.resolve("questions_train.json"))) {
      throw new MissingInput("the QASPER data set (papers/ and questions_train.json)", dir.toAbsolutePath().normalize(),
          "fetch it as shared/data/README.md says, or pass --qasper DIR");
    }
    return dir;
  }
}
