package arbor.jobs.repl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.jobs.Main;
import arbor.policy.files.TensorDtype;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.TinyModels;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code arbor repl --policy djl}: a tree written by a model folder, from the command line. */
class ReplDjlTest {
  @TempDir Path dir;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void aTinyModelFolderWritesEveryTurnOfTheTree() throws Exception {
    Path model = dir.resolve("model");
    TinyModels.write(ModelConfig.qwen3(300, 32, 64, 2, 4, 2, 8, true), 3,
        new TinyModels.TokenizerSource.ByteLevel(), TensorDtype.F32, model);
    Path context = dir.resolve("context.json");
    Files.writeString(context, "\"Paper One\\nAbstract\\nAlpha result.\"");
    int rc = run("repl", "--question", "Which result?", "--context", context.toString(),
        "--policy", "djl", "--model", model.toString(), "--in-process", "--json",
        "--set", "policy.djl.sampling.max_new_tokens=6", "--set", "policy.djl.torch_threads=1");
    assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
    JsonNode tree = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
    JsonNode root = tree.path("nodes").get(0);
    assertEquals("max_turns", root.path("status").asText(), root.toPrettyString());
    assertEquals(6, root.path("turns").size());
    assertTrue(root.path("gen_tokens").asLong() >= 6 && root.path("gen_tokens").asLong() <= 36);
  }

  @Test
  void djlWithoutAModelFolderIsAUsageErrorThatSaysWhatToGive() throws Exception {
    Path context = dir.resolve("context.json");
    Files.writeString(context, "\"text\"");
    assertEquals(2, run("repl", "--question", "q", "--context", context.toString(),
        "--policy", "djl", "--in-process"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--model DIR"),
        err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void anEndpointPolicyWhoseKeyVariableIsUnsetIsAUsageErrorNamingIt() throws Exception {
    Path context = dir.resolve("context.json");
    Files.writeString(context, "\"text\"");
    assertEquals(2, run("repl", "--question", "q", "--context", context.toString(),
        "--policy", "openai", "--in-process",
        "--set", "policy.openai.api_key_env=ARBOR_TEST_UNSET_KEY_VARIABLE"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("ARBOR_TEST_UNSET_KEY_VARIABLE"),
        err.toString(StandardCharsets.UTF_8));
  }
}
