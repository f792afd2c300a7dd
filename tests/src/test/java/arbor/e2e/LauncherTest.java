package arbor.e2e;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** bin/arbor as users call it, on the jar the build just made (ARBOR_NO_BUILD: never rebuild here). */
class LauncherTest {

  private record Result(int code, String output) {}

  private static Result launch(String... args) throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(TestEnv.REPO.resolve("jobs/target/arbor-jobs.jar")),
        "the jobs jar is not built (run mvn verify, which packages it before these tests)");
    String[] command = new String[args.length + 1];
    command[0] = TestEnv.REPO.resolve("bin/arbor").toString();
    System.arraycopy(args, 0, command, 1, args.length);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("ARBOR_NO_BUILD", "1");
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    return new Result(p.exitValue(), output);
  }

  @Test
  void helpListsTheJobs() throws Exception {
    Result r = launch("--help");
    assertEquals(0, r.code(), r.output());
    assertTrue(r.output().contains("  ingest   read PDFs"), r.output());
    assertTrue(r.output().contains("bin/arbor test"), r.output());
  }

  @Test
  void unknownJobFailsWithTwo() throws Exception {
    Result r = launch("frobnicate");
    assertEquals(2, r.code(), r.output());
    assertTrue(r.output().contains("arbor: unknown job 'frobnicate'"), r.output());
  }
}
