package arbor.jobs.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.tables.RolloutNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ViewSiteTest {
  private static final StepTrees.Query QUERY = new StepTrees.Query("q/1", "Which optimiser?", "focused", "g1",
      List.of(new StepTrees.Evidence("p1", "We train with AdamW and a cosine schedule."),
          new StepTrees.Evidence("p2", "Batch size is 64.")));

  private static RolloutNode node(String id, String parent, String root, int sample, int depth, int childIndex,
      String status, String answer) {
    return new RolloutNode("run", 2L, id, "q/1", sample, parent, root, depth, childIndex, 0, "prompt of " + id, answer,
        status, null, 1, 10, 1200, "djl", 3);
  }

  private static StepTrees.Turn turn(String nodeId, List<String> code, String observation) {
    return new StepTrees.Turn(nodeId, 0, "user", "the question", "```repl\n" + String.join("\n", code) + "\n```", code,
        observation, false, "stop", false, 40, 12, 250, 30, 1.0, 7);
  }

  private static StepTrees step(long step, double reward0, double reward1) {
    List<RolloutNode> nodes = List.of(
        node("a", null, "a", 0, 0, -1, "final", "[\"we train with adamw\", \"a made-up span\"]"),
        node("a.1", "a", "a", 0, 1, 0, "final", "[\"x\"]"),
        node("a.0", "a", "a", 0, 1, 1, "max_turns", null),
        node("b", null, "b", 1, 0, -1, "max_turns", null));
    List<StepTrees.Turn> turns = List.of(
        turn("a", List.of("hits = search(context, 'optimiser')  # look", "print(\"<script>alert(1)</script>\")"), "3 hits"),
        turn("a.1", List.of("FINAL_VAR(spans)"), null), turn("b", List.of(), null));
    return new StepTrees("r", step, nodes, turns,
        Map.of("a", new StepTrees.Verdict(reward0, 8.0, 4.0, "half found", 0.4, "rubric", "ok", null),
            "b", new StepTrees.Verdict(reward1, 1.0, 1.0, null, 0.0, "rubric", "ok", null)),
        Map.of("a", 0.7, "b", -0.7), Map.of("q/1", QUERY));
  }

  @Test
  void writesAStepPageAQueryPageWithTheWholeTreeAndAComparisonAcrossSteps(@TempDir Path dir) throws Exception {
    ViewSite site = new ViewSite(dir, "r", Map.of("q/1", 2));
    assertEquals(2, site.addStep(step(1, 0.6, 0.1), null, 2L));
    assertEquals(2, site.addStep(step(2, 0.3, 0.3), 1L, null));
    assertEquals(2, site.finish());

    String stepPage = Files.readString(dir.resolve(ViewPaths.stepPage(1)));
    assertEquals(2, count(stepPage, "<tr data-status="), "one row per tree");
    assertTrue(stepPage.contains("data-status=\"max_turns\" data-tier=\"focused\" data-reward=\"0.1\""), stepPage);
    assertTrue(stepPage.contains("href=\"q_2f1.html#tree-1\""), "rows link to their tree");
    assertFalse(stepPage.contains("equal rewards</span>"), "step 1's rewards differ");
    assertTrue(Files.readString(dir.resolve(ViewPaths.stepPage(2))).contains("equal rewards</span>"));

    String query = Files.readString(dir.resolve(ViewPaths.queryPage(1, "q/1")));
    assertTrue(query.contains("id=\"tree-0\"") && query.contains("id=\"tree-1\""));
    // Children nested in call order (child_index 0 before 1), each anchored for the diagram's links.
    assertTrue(query.indexOf("id=\"n1-a.1\"") < query.indexOf("id=\"n1-a.0\""));
    assertTrue(query.contains("href=\"#n1-a.0\""), "the diagram's boxes link to their nodes");
    // Model output is text, never markup.
    assertFalse(query.contains("<script>alert"));
    assertTrue(query.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assertTrue(query.contains("<span class=\"t\">search</span>") && query.contains("<span class=\"c\"># look</span>"));
    // Tree 0: the first evidence found by its first span, its second span off evidence, p2's
    // evidence missed; tree 1 answered nothing and missed both.
    assertEquals(1, count(query, "\u2713 found"));
    assertEquals(3, count(query, "\u2717 missed"));
    assertEquals(1, count(query, "\u2713 on evidence"));
    assertEquals(1, count(query, "\u2717 off evidence"));
    assertTrue(query.contains("half found") && query.contains("0.700") && query.contains("-0.700"));
    assertTrue(query.contains("no code block"), "a turn without code says so");

    String compare = Files.readString(dir.resolve(ViewPaths.comparePage("q/1")));
    assertTrue(compare.indexOf("step 1") < compare.indexOf("step 2"));
    assertEquals(4, count(compare, "<h4>"), "two trees per step");
    String index = Files.readString(dir.resolve("index.html"));
    assertTrue(index.contains("href=\"step-2/index.html\"") && index.contains("compare/q_2f1.html"));
    assertTrue(Files.exists(dir.resolve("assets/view.js")) && Files.exists(dir.resolve("assets/view.css")));
  }

  @Test
  void fileNamesNeverCollide() {
    assertEquals("q_2f1", ViewPaths.fileName("q/1"));
    assertEquals("q_5f2f1", ViewPaths.fileName("q_2f1"));
    assertEquals("_2e.", ViewPaths.fileName(".."));
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) n++;
    return n;
  }
}
