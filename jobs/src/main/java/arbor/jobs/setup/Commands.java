package arbor.jobs.setup;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Runs the external tools setup needs (apt-get, dpkg-deb, npm, tar) and explains their failures. */
final class Commands {
  private Commands() {}

  /** A tool exited with an error; the message holds the command and the end of its output. */
  static final class Failed extends IOException {
    Failed(String message) { super(message); }
  }

  static Optional<Path> find(String tool) {
    String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, tool);
      if (Files.isExecutable(candidate)) return Optional.of(candidate);
    }
    return Optional.empty();
  }

  static void run(Path workDir, List<String> command) throws IOException {
    Files.createDirectories(workDir);
    Path log = Files.createTempFile(workDir, ".cmd", ".log");
    try {
      Process p = new ProcessBuilder(command).directory(workDir.toFile())
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      int code = p.waitFor();
      if (code != 0) {
        List<String> lines = Files.readAllLines(log);
        String tail = String.join("\n    ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        throw new Failed(String.join(" ", command) + " exited with " + code + ":\n    " + tail);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running " + command.get(0), e);
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
