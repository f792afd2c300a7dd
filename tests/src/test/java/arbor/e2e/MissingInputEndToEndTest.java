package arbor.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A job over a warehouse without the table it reads ends with exit code 2 and one line naming
 * the table, where it looked and the job that writes it (not a stack trace, not exit 1).
 */
class MissingInputEndToEndTest {

  @Test
  void evalOnAnEmptyWarehouseNamesTheMissingTableAndTheJobThatWritesIt() throws Exception {
    Path root = TestEnv.WORK.resolve("missing-input-e2e");
    arbor.jobs.cli.FileTrees.delete(root);
    Path warehouse = root.resolve("warehouse");
    TestEnv.Run run = TestEnv.run("eval", "--run", "r", "--policy", "scripted", "--step", "0",
        "--report", root.resolve("report").toString(), "--set", "warehouse=" + warehouse);
    assertEquals(2, run.code(), run.out() + run.err());
    assertEquals("arbor: eval: missing table queries at file:" + warehouse.toAbsolutePath() + "/queries; run bin/arbor synthesize (after ingest) first", run.err().strip(), run.err());
  }
}
