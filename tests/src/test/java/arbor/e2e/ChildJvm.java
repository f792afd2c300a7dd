package arbor.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A JVM that a test starts as a process of its own (a driver it can kill, a job against a real
 * cluster): the JDK that runs the tests with the module flags the launcher gives every Arbor JVM
 * ({@code jobs/target/classes/arbor-jvm.options}, written when the jobs module is built), then
 * the test's own options, class path, main class and arguments.
 */
final class ChildJvm {
  private ChildJvm() {}

  static final Path FLAGS = TestEnv.REPO.resolve("jobs/target/classes/arbor-jvm.options");

  /** The java command line; {@code options} come after the project's flags, so they win. */
  static List<String> command(List<String> options, String classPath, String mainClass, List<String> args)
      throws IOException {
    if (!Files.isRegularFile(FLAGS)) {
      throw new IllegalStateException("no " + FLAGS + ": build the jobs module first (mvn -pl tests -am test builds it)");
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of(Files.readString(FLAGS).strip().split("\\s+")));
    cmd.addAll(options);
    cmd.addAll(List.of("-cp", classPath, mainClass));
    cmd.addAll(args);
    return cmd;
  }
}
