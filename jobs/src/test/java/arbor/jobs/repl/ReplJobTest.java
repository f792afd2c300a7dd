package arbor.jobs.repl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.jobs.Main;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code arbor repl}: one tree from a context file, printed or as JSON; usage errors exit 2. */
class ReplJobTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  @TempDir Path dir;

  private int run(String... args) {
    return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private Path write(String name, String content) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, content);
    return p;
  }

  @Test
  void aReplayedTreeIsPrintedAsOneJsonDocument() throws Exception {
    Path context = write("context.json",
        "{\"p1\": \"Paper One\\nAbstract\\nWe train on WMT.\", \"p2\": \"Paper Two\\nAbstract\\nNothing.\"}");
    Path replay = write("replay.json", """
        {"root": ["```repl\\nr = rlm_query_batched(['q'], [context['p1']])\\n```", "FINAL_VAR(r)"],
         "root.0": ["```repl\\nFINAL([search(context, 'WMT', 10)[0]])\\n```"]}""");
    assertEquals(0, run("repl", "--question", "Which data?", "--context", context.toString(), "--policy", "replay",
        "--replay", replay.toString(), "--json", "--in-process"), err.toString(StandardCharsets.UTF_8));
    JsonNode doc = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
    assertEquals("final", doc.get("status").asText());
    assertEquals("[[\"We train on WMT.\"]]", doc.get("final_answer").toString());
    assertEquals(2, doc.get("nodes").size());
  }

  @Test
  void theScriptedExpertRunsInSandboxWorkersAndTheTreeIsPrintedAsItUnfolds() throws Exception {
    Path context = write("paper.json", "\"Dense Retrieval\\nAbstract\\nWe revisit dual encoders.\\n\\n"
        + "We train the dual encoder on Natural Questions with in-batch negatives.\"");
    assertEquals(0, run("repl", "--question", "Which dataset is the dual encoder trained on?", "--context",
        context.toString(), "--policy", "scripted"), err.toString(StandardCharsets.UTF_8));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertTrue(printed.contains("== repl:root starts: Which dataset"), printed);
    assertTrue(printed.contains(">>> hits = []"), printed);
    assertTrue(printed.contains("final answer (final): [\"We train the dual encoder on Natural Questions"), printed);
  }

  @Test
  void usageErrorsExitWithTwoAndSayWhy() throws Exception {
    Path context = write("c.json", "\"text\"");
    assertEquals(2, run("repl", "--context", context.toString()));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--question is required"));
    assertEquals(2, run("repl", "--question", "q"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("either --papers PATH... or --context FILE"));
    assertEquals(2, run("repl", "--question", "q", "--context", context.toString(), "--policy", "oracle"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown policy 'oracle'"));
    assertEquals(2, run("repl", "--question", "q", "--context", write("n.json", "42").toString()));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("a context must be a str or a dict"), err.toString(StandardCharsets.UTF_8));
  }
}
