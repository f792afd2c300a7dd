package arbor.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.jobs.conf.ConfigLoader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The gpu profile and its discovery script, on a machine without GPUs (nvidia-smi is faked). */
class GpuProfileTest {
  private static final Path SCRIPT = TestEnv.REPO.resolve("conf/gpu-discovery.sh");

  private record Run(int exit, String out, String err) {}

  private static Run discover(String fakeSmiOutput) throws Exception {
    Path bin = Files.createDirectories(TestEnv.WORK.resolve("gpu-discovery/bin"));
    Path smi = bin.resolve("nvidia-smi");
    Files.deleteIfExists(smi);
    if (fakeSmiOutput != null) {
      Files.writeString(smi, "#!/bin/sh\nprintf '" + fakeSmiOutput + "'\n");
      Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    ProcessBuilder pb = new ProcessBuilder(SCRIPT.toString());
    // Only the fake's folder and the basics: a real nvidia-smi elsewhere on PATH must not count.
    pb.environment().put("PATH", bin + ":/usr/bin:/bin");
    Path out = bin.resolveSibling("out"), err = bin.resolveSibling("err");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
  }

  @Test
  void theDiscoveryScriptListsNvidiaSmisGpusInSparksResourceFormat() throws Exception {
    Run run = discover("0\\n 1\\n");
    assertEquals(0, run.exit(), run.err());
    JsonNode json = new ObjectMapper().readTree(run.out());
    assertEquals("gpu", json.get("name").asText());
    assertEquals(List.of("0", "1"), new ObjectMapper().convertValue(json.get("addresses"), List.class));
  }

  @Test
  void withoutNvidiaSmiTheScriptFailsAndSaysWhy() throws Exception {
    Run run = discover(null);
    assertNotEquals(0, run.exit());
    assertTrue(run.err().contains("nvidia-smi not found"), run.err());
  }

  @Test
  void anUnexpectedNvidiaSmiLineIsRejected() throws Exception {
    Run run = discover("No devices were found\\n");
    assertNotEquals(0, run.exit());
    assertTrue(run.err().contains("not a GPU index"), run.err());
  }

  @Test
  void theGpuProfileAsksSparkForOneGpuPerExecutorAndAQuarterPerTask() {
    Map<String, String> extra = ConfigLoader.load(List.of("cluster", "gpu"), List.of()).spark().extra();
    assertEquals("1", extra.get("spark.executor.resource.gpu.amount"));
    assertEquals("0.25", extra.get("spark.task.resource.gpu.amount"));
    assertEquals("./gpu-discovery.sh", extra.get("spark.executor.resource.gpu.discoveryScript"));
  }
}
