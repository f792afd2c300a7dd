package arbor.jobs.bench;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The results phase of bench learning on scores worked out by hand: pooling replicates, their figures. */
class LearningBenchResultsTest {
  private static final List<String> QUERIES = List.of("q1", "q2", "q3", "q4", "q5", "q6");
  private static final Map<String, String> GROUPS = Map.of("q1", "g1", "q2", "g1", "q3", "g2", "q4", "g2", "q5", "g3",
      "q6", "g3");

  private static LearningBench.Scored flat(String label, String run, long step, double score) {
    Map<String, Double> perQuery = new TreeMap<>();
    for (String q : QUERIES) perQuery.put(q, score);
    return new LearningBench.Scored(label, run, step, perQuery, 4L * QUERIES.size(), 0, 0);
  }

  /** A replicate whose SFT student scores {@code sft} on every query, and its two arms at step 2. */
  private static LearningBench.Replicate replicate(int i, double sft, double rl, double un, Map<Long, Double> train) {
    String name = "learning-t" + (i == 0 ? "" : "-r" + i);
    LearningBench.Scored s = flat("sft", name + "-sft", 0, sft);
    return new LearningBench.Replicate(i, 100 + i, name + "-sft", name + "-rl", name + "-unnorm",
        new TreeMap<>(Map.of(0L, s, 2L, flat("rl (tree)", name + "-rl", 2, rl))),
        new TreeMap<>(Map.of(0L, s, 2L, flat("rl (token_mean)", name + "-unnorm", 2, un))), train, Map.of());
  }

  private static Map<String, Object> results(List<LearningBench.Replicate> reps, Path png, StringBuilder printed)
      throws Exception {
    Map<String, Object> figures = new LinkedHashMap<>();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      LearningBench.results(out, figures, "test", 2, reps, flat("bm25 top-3", "-", 0, 0.0),
          flat("expert", "learning-t-expert", 0, 0.4), GROUPS, png);
    }
    printed.append(bytes.toString(StandardCharsets.UTF_8));
    return figures;
  }

  @Test
  void twoStudentsArePooledPerQueryAndTheirSpreadWidensTheReplicateInterval(@TempDir Path dir) throws Exception {
    // Replicate 1: GRPO gains 0.1 on every query; replicate 2: nothing. Pooled, every query gains
    // 0.05, so the groups' interval has no width; resampling the two students gives 0 (both the
    // second, 1 in 4), 0.05 or 0.1 (both the first, 1 in 4): the interval is [0, 0.1].
    StringBuilder printed = new StringBuilder();
    Map<String, Object> f = results(List.of(replicate(0, 0.2, 0.3, 0.25, Map.of(0L, 0.3, 1L, 0.5)),
        replicate(1, 0.1, 0.1, 0.1, Map.of(0L, 0.1))), dir.resolve("curve.png"), printed);
    assertEquals(0.15, f.get("reward_sft"));
    assertEquals(0.2, f.get("reward_rl"));
    assertEquals(0.175, f.get("reward_rl_unnormalised"));
    assertEquals(0.4, f.get("reward_expert"));
    assertEquals(List.of(0.05, 0.05), f.get("ci95_rl_minus_sft"));
    assertEquals(List.of(0.1, 0.0), f.get("rl_minus_sft_replicates"));
    assertEquals(List.of(0.0, 0.1), f.get("ci95_rl_minus_sft_replicates"));
    assertEquals(List.of(0.05, 0.0), f.get("unnormalised_minus_sft_replicates"));
    assertEquals(List.of(100L, 101L), f.get("student_seeds"));
    assertEquals(6, f.get("held_out_queries"));
    assertEquals(3, f.get("held_out_groups"));
    assertEquals(List.of(0L, 2L), f.get("curve_steps"));
    assertEquals(List.of(0.15, 0.2), f.get("heldout_curve_rl"));
    // The training reward per step, averaged over the replicates that have the step.
    assertEquals(List.of(0.2, 0.5), f.get("curve_rl"));
    assertEquals(0L, f.get("unjudged_trees"));
    assertTrue(printed.toString().contains("rl - sft          | +0.1000 +0.0000"), printed.toString());
    assertTrue(printed.toString().contains("learning-t-r1-rl"), printed.toString());
    assertTrue(Files.size(dir.resolve("curve.png")) > 0);
  }

  @Test
  void oneStudentIsItsOwnPoolAndHasNoReplicateFigures(@TempDir Path dir) throws Exception {
    StringBuilder printed = new StringBuilder();
    Map<String, Object> f = results(List.of(replicate(0, 0.2, 0.3, 0.25, Map.of(0L, 0.3))), dir.resolve("c.png"),
        printed);
    assertEquals(0.2, f.get("reward_sft"));
    assertEquals(0.3, f.get("reward_rl"));
    assertEquals(List.of(0.1, 0.1), f.get("ci95_rl_minus_sft"));
    assertFalse(f.containsKey("student_seeds"));
    assertFalse(f.containsKey("ci95_rl_minus_sft_replicates"));
    assertFalse(printed.toString().contains("replicate-and-group"), printed.toString());
  }
}
