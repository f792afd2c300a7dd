package arbor.notebook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class TreeViewTest {
  // root -> a, b (b listed first but called second); a -> a0
  private static final List<TreeView.Node> NODES = List.of(
      new TreeView.Node("root", null, -1, "final", "the question", "[\"e1\"]", null, 0.75),
      new TreeView.Node("b", "root", 1, "max_turns", "child b", null, null, null),
      new TreeView.Node("a", "root", 0, "final", "child a", "[\"x\"]", null, null),
      new TreeView.Node("a0", "a", 0, "sandbox_error", "grandchild", null, "worker died", null));

  private static final List<TreeView.Turn> TURNS = List.of(
      new TreeView.Turn("root", 1, "then answer", List.of(), "done", false),
      new TreeView.Turn("root", 0, "look first", List.of("print(len(context))"), "3", false),
      new TreeView.Turn("a0", 0, "try", List.of("1/0"), "ZeroDivisionError", true));

  @Test
  void childrenAreOrderedByTheirCallPosition() {
    assertEquals(List.of("a", "b"), TreeView.children(NODES).get("root").stream().map(TreeView.Node::nodeId).toList());
  }

  @Test
  void theDiagramHasABoxPerNodeAndALinePerEdgeWithParentsCentredOverChildren() {
    String svg = TreeView.svg(NODES);
    assertEquals(4, count(svg, "<rect "));
    assertEquals(3, count(svg, "<line "));
    assertTrue(svg.contains("reward 0.750"), svg);
    // leaves a0 and b take slots 0 and 1 (x = 20 and 190); a sits over a0 (20), root between a and b (105);
    // boxes come in list order: root, b, a, a0
    assertEquals(List.of("105", "190", "20", "20"), rectXs(svg));
  }

  @Test
  void theDetailsShowTurnsInOrderWithCodeObservationsAndErrors() {
    String html = TreeView.details(NODES, TURNS);
    assertTrue(html.indexOf("look first") < html.indexOf("then answer"), "turn 0 before turn 1");
    assertTrue(html.contains("print(len(context))"));
    assertTrue(html.contains("#fbe3e3") && html.contains("ZeroDivisionError"), "a REPL error is marked");
    assertTrue(html.contains("worker died"));
    assertTrue(html.indexOf(">a</b>") < html.indexOf(">a0</b>") && html.indexOf(">a0</b>") < html.indexOf(">b</b>"),
        "children nested in call order");
  }

  @Test
  void nodesWithTwoRootsAreRejectedByName() {
    var two = List.of(NODES.get(0), new TreeView.Node("other", null, -1, "final", "q", null, null, null));
    var e = assertThrows(IllegalArgumentException.class, () -> TreeView.svg(two));
    assertTrue(e.getMessage().contains("[root, other]"), e.getMessage());
  }

  private static int count(String s, String part) {
    return s.split(Pattern.quote(part), -1).length - 1;
  }

  private static List<String> rectXs(String svg) {
    Matcher m = Pattern.compile("<rect x=\"(\\d+)\"").matcher(svg);
    List<String> xs = new java.util.ArrayList<>();
    while (m.find()) xs.add(m.group(1));
    return xs;
  }
}
