package arbor.notebook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.notebook.CheckpointComparison.Answer;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.checkpoint.OptimizerState;
import arbor.policy.files.HostTensor;
import arbor.policy.files.TensorDtype;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckpointComparisonTest {

  private static HostTensor t(String name, long[] shape, float... values) {
    return new HostTensor(name, TensorDtype.F32, shape, values);
  }

  private static Checkpoint step(long step, HostTensor... weights) {
    return new Checkpoint("run", step, List.of(weights), OptimizerState.NONE, new byte[0], Map.of());
  }

  @Test
  void theLargestDifferenceIsFoundAndItsTensorNamed() {
    var old = step(0, t("embed", new long[] {2, 2}, 1, 2, 3, 4), t("norm", new long[] {2}, 1, 1), t("head", new long[] {1}, 5));
    var latest = step(2, t("embed", new long[] {2, 2}, 1, 2, 3.5f, 4), t("norm", new long[] {2}, 1, -1.25f), t("head", new long[] {1}, 5));
    var d = CheckpointComparison.diff(old, latest);
    assertEquals("norm", d.tensor());
    assertEquals(2.25, d.maxAbsDiff(), 1e-9);
    assertEquals(3, d.tensors());
    assertEquals(2, d.changed(), "head is unchanged");
    assertEquals(7, d.elements());
    assertTrue(d.html().contains("step 0 vs step 2") && d.html().contains("<code>norm</code>"), d.html());
    var same = CheckpointComparison.diff(old, step(1, old.weights().toArray(HostTensor[]::new)));
    assertEquals(0, same.changed());
    assertEquals(0.0, same.maxAbsDiff());
    assertTrue(same.html().contains("identical"), same.html());
  }

  @Test
  void checkpointsOfDifferentModelsAreRefusedByName() {
    var old = step(0, t("a", new long[] {2}, 1, 2), t("b", new long[] {1}, 1));
    var other = step(1, t("a", new long[] {2}, 1, 2), t("c", new long[] {1}, 1));
    var e = assertThrows(IllegalArgumentException.class, () -> CheckpointComparison.diff(old, other));
    assertTrue(e.getMessage().contains("[b]") && e.getMessage().contains("[c]"), e.getMessage());
    var reshaped = step(1, t("a", new long[] {1, 2}, 1, 2), t("b", new long[] {1}, 1));
    e = assertThrows(IllegalArgumentException.class, () -> CheckpointComparison.diff(old, reshaped));
    assertTrue(e.getMessage().contains("'a'") && e.getMessage().contains("[1, 2]"), e.getMessage());
  }

  @Test
  void answersArePairedByQueryAndSampleAndAMissingTreeIsNull() {
    var old = List.of(new Answer("q2", 0, "final", "old q2", 0.5, 0.4), new Answer("q1", 0, "max_turns", null, 0.0, null));
    var latest = List.of(new Answer("q1", 0, "final", "new q1", 1.0, 1.0), new Answer("q2", 0, "final", "new q2", 0.25, 0.2),
        new Answer("q2", 1, "final", "only new", 0.1, 0.1));
    var pairs = CheckpointComparison.pair(Map.of("q1", "first?", "q2", "second?"), old, latest);
    assertEquals(List.of("q1#0", "q2#0", "q2#1"), pairs.stream().map(p -> p.queryId() + "#" + p.sample()).toList());
    assertEquals("first?", pairs.get(0).question());
    assertNull(pairs.get(0).old().finalAnswer());
    assertEquals("new q1", pairs.get(0).latest().finalAnswer());
    assertEquals("old q2", pairs.get(1).old().finalAnswer());
    assertNull(pairs.get(2).old());
    var twice = List.of(old.get(0), old.get(0));
    assertThrows(IllegalArgumentException.class, () -> CheckpointComparison.pair(Map.of(), twice, latest));
  }

  @Test
  void theTableShowsBothStepsEscaped() {
    var pairs = CheckpointComparison.pair(Map.of("q1", "Which <b>?"),
        List.of(new Answer("q1", 0, "final", "[\"<e1>\"]", 0.5, 0.25)), List.of());
    String html = CheckpointComparison.html(pairs, 0, 2, 300);
    assertTrue(html.contains("step 0 answer") && html.contains("step 2 reward"), html);
    assertTrue(html.contains("Which &lt;b&gt;?") && html.contains("&lt;e1&gt;"), html);
    assertTrue(html.contains("0.500 (F1 0.250)") && html.contains("no tree"), html);
  }
}
