package arbor.jobs;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The command line's contract: help, exit codes and messages. None of these start Spark. */
class MainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() { return out.toString(StandardCharsets.UTF_8); }
  private String err() { return err.toString(StandardCharsets.UTF_8); }

  @Test
  void helpListsEveryJobWithALine() {
    assertEquals(0, run("--help"));
    for (String job : Main.jobs().keySet()) assertTrue(out().contains("\n  " + job + " "), job + " missing from:\n" + out());
  }

  @Test
  void noJobPrintsTheOverviewAndFails() {
    assertEquals(2, run());
    assertTrue(out().startsWith("usage: arbor <job>"));
  }

  @Test
  void unknownJobIsAnErrorThatListsTheJobs() {
    assertEquals(2, run("train-everything"));
    assertTrue(err().contains("unknown job 'train-everything'; the jobs are " + Main.jobs().keySet()), err());
    assertTrue(err().contains("synthesize") && err().contains("refresh"), err());
  }

  @Test
  void unknownOptionOfAJobIsAnError() {
    assertEquals(2, run("ingest", "--papres", "x"));
    assertTrue(err().contains("ingest: unknown option '--papres'; it takes [--papers]"), err());
  }

  @Test
  void jobHelpShowsItsOptions() {
    assertEquals(0, run("ingest", "--help"));
    assertTrue(out().contains("--papers PATH..."));
  }

  @Test
  void configurationErrorsExitWithTwoBeforeTheJobRuns() {
    assertEquals(2, run("sql", "SELECT 1", "--set", "spark.mode=nowhere"));
    assertTrue(err().contains("key 'spark.mode'"), err());
  }

  @Test
  void missingOptionValueIsAnError() {
    assertEquals(2, run("ingest", "--conf"));
    assertTrue(err().contains("--conf needs a value"), err());
  }

  @Test
  void unknownBenchmarkIsAnError() {
    assertEquals(2, run("bench", "warp-speed"));
    assertTrue(err().contains("unknown benchmark 'warp-speed'"), err());
  }

  @Test
  void aBenchWithoutItsDataSetSaysWhichAndHowToGetItInOneLine() {
    String absent = "/nonexistent/qasper-train";
    for (String bench : new String[] {"repl", "dataset", "expert"}) {
      err.reset();
      assertEquals(2, run("bench", bench, "--qasper", absent), err());
      assertEquals("arbor: bench " + bench + ": missing the QASPER data set (papers/ and questions_train.json) at " + absent
          + "; fetch it as shared/data/README.md says, or pass --qasper DIR\n", err().replace("\r\n", "\n"));
    }
  }

  @Test
  void replWithoutItsContextFileSaysSoInOneLine() {
    assertEquals(2, run("repl", "--question", "q", "--context", "/nonexistent/context.json", "--policy", "scripted"), err());
    assertTrue(err().startsWith("arbor: repl: missing the --context file at /nonexistent/context.json; give a JSON file"), err());
    assertEquals(1, err().lines().count(), err());
  }

  @Test
  void aMissingInputThrownDeepInAJobIsFoundInTheCauses() {
    var missing = new arbor.inputs.MissingInput("table queries", "/wh/queries", "run bin/arbor synthesize first");
    var wrapped = new RuntimeException("stage failed", new IllegalStateException("task failed", missing));
    assertSame(missing, arbor.inputs.MissingInput.in(wrapped));
    assertEquals("arbor: train: missing table queries at /wh/queries; run bin/arbor synthesize first",
        arbor.inputs.MissingInput.in(wrapped).line("train"));
    assertNull(arbor.inputs.MissingInput.in(new RuntimeException("other")));
  }
}
