package arbor.rlm;

import java.io.PrintStream;

/** Prints a tree as it unfolds: nodes, each turn's code and observation, children, final answers. */
public final class TreePrinter implements TreeRunner.TreeListener {
  private static final int MAX_OBSERVATION = 2_000;
  private final PrintStream out;

  public TreePrinter(PrintStream out) {
    this.out = out;
  }

  @Override
  public synchronized void nodeStarted(String nodeId, int depth, String prompt) {
    out.printf("%s== %s starts: %s%n", indent(depth), nodeId, oneLine(prompt, 200));
  }

  @Override
  public synchronized void turnEnded(String nodeId, Turn turn) {
    int depth = depthOf(nodeId);
    String pad = indent(depth);
    out.printf("%s-- %s turn %d (%d ms generating, %d ms running)%n", pad, nodeId, turn.index(),
        turn.genMillis(), turn.execMillis());
    for (String code : turn.code()) {
      code.lines().forEach(l -> out.println(pad + "  >>> " + l));
    }
    String obs = turn.observation().length() > MAX_OBSERVATION
        ? turn.observation().substring(0, MAX_OBSERVATION) + " ..." : turn.observation();
    obs.lines().forEach(l -> out.println(pad + "  " + l));
  }

  @Override
  public synchronized void nodeEnded(NodeRecord node) {
    out.printf("%s== %s ends: %s, answer %s (%d children, %d ms)%n", indent(node.depth()), node.nodeId(),
        node.status().key(), node.finalAnswerJson() == null ? "none" : oneLine(node.finalAnswerJson(), 500),
        node.numChildren(), node.latencyMillis());
  }

  private static int depthOf(String nodeId) {
    String path = nodeId.substring(nodeId.lastIndexOf(':') + 1);
    return (int) path.chars().filter(c -> c == '.').count();
  }

  private static String indent(int depth) {
    return "  ".repeat(depth);
  }

  private static String oneLine(String s, int max) {
    String line = s.replace('\n', ' ');
    return line.length() > max ? line.substring(0, max) + "..." : line;
  }
}
