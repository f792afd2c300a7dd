package arbor.notebook;

import static org.apache.spark.sql.functions.col;

import arbor.pipelines.warehouse.Table;
import arbor.tables.Cols;
import arbor.tables.Reward;
import arbor.tables.RolloutNode;
import arbor.tables.RolloutTurn;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;

/**
 * One rollout tree, drawn twice: as an SVG diagram (a box per node, children below their
 * parent in call order, coloured by status, with the reward where the judge gave one) and as
 * nested, collapsible HTML with each node's prompt, turns (response, code, observation) and
 * final answer.
 */
public final class TreeView {
  private TreeView() {}

  public record Node(String nodeId, String parentId, int childIndex, String status, String prompt, String finalAnswer,
      String error, Double reward) {}

  public record Turn(String nodeId, int turn, String response, List<String> code, String observation, boolean replError) {}

  /** The tree rooted at {@code rootId} of one step, read from rollout_nodes, rollout_turns and (if it exists) rewards. */
  public static String forRoot(Notebook nb, String runId, long step, String rootId) {
    Column stepRows = col(Cols.RUN_ID).equalTo(runId).and(col(Cols.STEP).equalTo(step));
    List<Row> nodeRows = nb.table(Table.ROLLOUT_NODES).where(stepRows.and(col(Cols.ROOT_ID).equalTo(rootId))).collectAsList();
    if (nodeRows.isEmpty()) {
      throw new IllegalArgumentException("no rollout_nodes rows for run '" + runId + "', step " + step + ", root '" + rootId + "'");
    }
    Map<String, Double> rewards = new HashMap<>();
    if (nb.warehouse().exists(Table.REWARDS)) {
      for (Row r : nb.table(Table.REWARDS).where(stepRows).select(Cols.NODE_ID, Reward.REWARD).collectAsList()) {
        if (!r.isNullAt(1)) rewards.put(r.getString(0), r.getDouble(1));
      }
    }
    List<Node> nodes = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (Row r : nodeRows) {
      RolloutNode n = RolloutNode.of(r);
      ids.add(n.nodeId());
      nodes.add(new Node(n.nodeId(), n.parentId(), n.childIndex(), n.status(), n.prompt(), n.finalAnswer(), n.error(),
          rewards.get(n.nodeId())));
    }
    List<Turn> turns = new ArrayList<>();
    for (Row r : nb.table(Table.ROLLOUT_TURNS).where(stepRows.and(col(Cols.NODE_ID).isin(ids.toArray()))).collectAsList()) {
      RolloutTurn t = RolloutTurn.of(r);
      turns.add(new Turn(t.nodeId(), t.turn(), t.responseText(), t.code(), t.observation(), t.replError()));
    }
    return svg(nodes) + details(nodes, turns);
  }

  /** Children of each node in call order; the one node without a parent (or whose parent is absent) is the root. */
  static Map<String, List<Node>> children(List<Node> nodes) {
    Map<String, List<Node>> kids = new LinkedHashMap<>();
    for (Node n : nodes) kids.put(n.nodeId(), new ArrayList<>());
    for (Node n : nodes) if (n.parentId() != null && kids.containsKey(n.parentId())) kids.get(n.parentId()).add(n);
    kids.values().forEach(l -> l.sort(Comparator.comparingInt(Node::childIndex)));
    return kids;
  }

  static Node root(List<Node> nodes) {
    Map<String, List<Node>> kids = children(nodes);
    List<Node> roots = nodes.stream().filter(n -> n.parentId() == null || !kids.containsKey(n.parentId())).toList();
    if (roots.size() != 1) {
      throw new IllegalArgumentException("a tree needs exactly one root, these nodes have " + roots.size() + ": "
          + roots.stream().map(Node::nodeId).toList());
    }
    return roots.get(0);
  }

  private static final int BOX_W = 150;
  private static final int BOX_H = 46;
  private static final int GAP_X = 20;
  private static final int GAP_Y = 40;

  /** The diagram: leaves left to right in call order, each parent centred over its children. */
  public static String svg(List<Node> nodes) {
    return svg(nodes, null);
  }

  /** The diagram with each node's box a link to {@code href.apply(nodeId)} (null: no links). */
  public static String svg(List<Node> nodes, java.util.function.Function<String, String> href) {
    Map<String, List<Node>> kids = children(nodes);
    Map<String, double[]> at = new HashMap<>();
    int[] nextLeaf = {0};
    int depth = place(root(nodes), 0, kids, at, nextLeaf);
    int width = nextLeaf[0] * (BOX_W + GAP_X) + GAP_X;
    int height = (depth + 1) * (BOX_H + GAP_Y) + GAP_Y;
    StringBuilder s = new StringBuilder("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + width + "\" height=\"" + height
        + "\" font-family=\"sans-serif\" font-size=\"11\">");
    for (Node n : nodes) {
      double[] p = at.get(n.nodeId());
      for (Node c : kids.get(n.nodeId())) {
        double[] q = at.get(c.nodeId());
        s.append(String.format("<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#888\"/>",
            p[0] + BOX_W / 2.0, p[1] + BOX_H, q[0] + BOX_W / 2.0, q[1]));
      }
    }
    for (Node n : nodes) {
      double[] p = at.get(n.nodeId());
      if (href != null) s.append("<a href=\"").append(Html.escape(href.apply(n.nodeId()))).append("\">");
      s.append(String.format("<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" rx=\"5\" fill=\"%s\" stroke=\"#444\"/>",
          p[0], p[1], BOX_W, BOX_H, colour(n.status())));
      s.append(String.format("<text x=\"%.0f\" y=\"%.0f\">%s</text>", p[0] + 5, p[1] + 14, Html.escape(Html.clip(n.nodeId(), 22))));
      s.append(String.format("<text x=\"%.0f\" y=\"%.0f\">%s</text>", p[0] + 5, p[1] + 28, Html.escape(n.status())));
      String last = n.reward() == null ? (n.finalAnswer() == null ? "no answer" : "answered")
          : String.format("reward %.3f", n.reward());
      s.append(String.format("<text x=\"%.0f\" y=\"%.0f\">%s</text>", p[0] + 5, p[1] + 41, Html.escape(last)));
      if (href != null) s.append("</a>");
    }
    return s.append("</svg>").toString();
  }

  private static int place(Node n, int depth, Map<String, List<Node>> kids, Map<String, double[]> at, int[] nextLeaf) {
    List<Node> cs = kids.get(n.nodeId());
    double y = GAP_Y / 2.0 + depth * (BOX_H + GAP_Y);
    int deepest = depth;
    if (cs.isEmpty()) {
      at.put(n.nodeId(), new double[] {GAP_X + nextLeaf[0]++ * (BOX_W + GAP_X), y});
      return depth;
    }
    for (Node c : cs) deepest = Math.max(deepest, place(c, depth + 1, kids, at, nextLeaf));
    double first = at.get(cs.get(0).nodeId())[0];
    double last = at.get(cs.get(cs.size() - 1).nodeId())[0];
    at.put(n.nodeId(), new double[] {(first + last) / 2, y});
    return deepest;
  }

  private static String colour(String status) {
    return switch (status == null ? "" : status) {
      case "final" -> "#d8f0d0";
      case "max_turns", "budget", "cancelled" -> "#f6e7c1";
      default -> "#f4c7c3";
    };
  }

  /** Nested, collapsible HTML: a node's prompt, turns and answer, then its children inside it. */
  public static String details(List<Node> nodes, List<Turn> turns) {
    Map<String, List<Turn>> byNode = new HashMap<>();
    for (Turn t : turns) byNode.computeIfAbsent(t.nodeId(), k -> new ArrayList<>()).add(t);
    byNode.values().forEach(l -> l.sort(Comparator.comparingInt(Turn::turn)));
    StringBuilder s = new StringBuilder();
    node(root(nodes), children(nodes), byNode, s, true);
    return s.toString();
  }

  private static void node(Node n, Map<String, List<Node>> kids, Map<String, List<Turn>> turns, StringBuilder s, boolean open) {
    List<Turn> ts = turns.getOrDefault(n.nodeId(), List.of());
    s.append("<details").append(open ? " open" : "").append(" style=\"margin-left:14px;border-left:2px solid #ccc;padding-left:6px\">")
        .append("<summary><b>").append(Html.escape(n.nodeId())).append("</b> ").append(Html.escape(n.status()))
        .append(", ").append(ts.size()).append(" turns, ").append(kids.get(n.nodeId()).size()).append(" children");
    if (n.reward() != null) s.append(String.format(", reward %.3f", n.reward()));
    s.append("</summary>");
    s.append("<details><summary>prompt</summary>").append(Html.pre(n.prompt())).append("</details>");
    for (Turn t : ts) {
      s.append("<div style=\"margin:4px 0\"><i>turn ").append(t.turn()).append("</i>");
      s.append(Html.pre(Html.clip(t.response(), 4000)));
      for (String code : t.code()) s.append("<div style=\"background:#f3f3f8\">").append(Html.pre(code)).append("</div>");
      if (t.observation() != null) {
        s.append("<div style=\"background:").append(t.replError() ? "#fbe3e3" : "#eef7ee").append("\">")
            .append(Html.pre(Html.clip(t.observation(), 4000))).append("</div>");
      }
      s.append("</div>");
    }
    if (n.finalAnswer() != null) s.append("<div><b>final answer</b>").append(Html.pre(Html.clip(n.finalAnswer(), 4000))).append("</div>");
    if (n.error() != null) s.append("<div style=\"color:#b00\"><b>error</b> ").append(Html.escape(n.error())).append("</div>");
    for (Node c : kids.get(n.nodeId())) node(c, kids, turns, s, false);
    s.append("</details>");
  }
}
