package arbor.jobs.view;

import arbor.judge.FinalAnswer;
import arbor.notebook.Html;
import arbor.notebook.TreeView;
import arbor.tables.RolloutNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One rollout tree as HTML: its verdict, the ground truth beside the root's answer (matches
 * marked), the tree drawn as a diagram whose boxes link to the nodes, and each node's turns
 * (the last message it was given, its code highlighted, what the REPL answered), children
 * nested inside their parent.
 */
final class TreeHtml {
  /** Longer texts are cut, with their full length said: a page must stay readable and small. */
  static final int CLIP = 6000;

  private final StepTrees step;
  private final Map<String, List<RolloutNode>> children;
  private final Map<String, List<StepTrees.Turn>> turns;

  TreeHtml(StepTrees step, Map<String, List<RolloutNode>> children, Map<String, List<StepTrees.Turn>> turns) {
    this.step = step;
    this.children = children;
    this.turns = turns;
  }

  /** The anchor of a node, unique on a page that shows several steps. */
  static String anchor(long step, String nodeId) {
    return "n" + step + "-" + ViewPaths.fileName(nodeId);
  }

  String tree(RolloutNode root) {
    StringBuilder s = new StringBuilder();
    StepTrees.Verdict v = step.verdicts().get(root.nodeId());
    Double advantage = step.advantages().get(root.nodeId());
    s.append("<div class=\"facts\">").append(fact("status", root.status())).append(fact("reward", num(v == null ? null : v.reward())))
        .append(fact("advantage", num(advantage))).append(fact("span F1", num(v == null ? null : v.spanF1())))
        .append(fact("nodes", String.valueOf(subtree(root).size()))).append(fact("children", String.valueOf(kids(root).size())))
        .append(fact("tokens", String.valueOf(subtree(root).stream().mapToLong(RolloutNode::genTokens).sum())))
        .append(fact("wall time", String.format(Locale.ROOT, "%.1f s", root.latencyMs() / 1000.0)))
        .append(fact("policy", root.policy() + " v" + root.policyVersion())).append("</div>");
    if (v != null) s.append(verdict(v));
    s.append(evidence(root));
    List<TreeView.Node> diagram = subtree(root).stream().map(n -> new TreeView.Node(n.nodeId(),
        n == root ? null : n.parentId(), n.childIndex(), n.status(), n.prompt(), n.finalAnswer(), n.error(),
        n == root && v != null ? v.reward() : null)).toList();
    s.append("<div class=\"diagram\">").append(TreeView.svg(diagram, id -> "#" + anchor(step.step(), id))).append("</div>");
    node(root, s, true);
    return s.toString();
  }

  /** A rubric score: the judge gives precision and recall from 1 to 10, the reward from them in [0, 1]. */
  private static String score(Double v) {
    return v == null ? "\u2013" : String.format(Locale.ROOT, "%.1f/10", v);
  }

  private String verdict(StepTrees.Verdict v) {
    StringBuilder s = new StringBuilder("<div class=\"verdict\"><b>Judge</b> (").append(Html.escape(v.judge())).append(", ")
        .append(Html.escape(v.status())).append("): precision ").append(score(v.precision())).append(", recall ")
        .append(score(v.recall())).append(", reward ").append(num(v.reward()));
    if (v.error() != null) s.append("<div class=\"err\">").append(Html.escape(v.error())).append("</div>");
    if (v.reasoning() != null && !v.reasoning().isBlank()) {
      s.append("<details><summary>reasoning</summary>").append(Html.pre(Html.clip(v.reasoning(), CLIP))).append("</details>");
    }
    return s.append("</div>").toString();
  }

  /** Ground truth and prediction in two columns, each item marked when it meets the other side. */
  private String evidence(RolloutNode root) {
    StepTrees.Query q = step.queries().get(root.queryId());
    List<String> truth = q == null ? List.of() : q.evidence().stream().map(StepTrees.Evidence::text).toList();
    List<String> spans = FinalAnswer.spans(root.finalAnswer());
    EvidenceMarks marks = EvidenceMarks.of(truth, spans);
    StringBuilder s = new StringBuilder("<div class=\"evidence\"><div><h4>Ground truth (").append(truth.size()).append(")</h4>");
    if (q == null) s.append("<p class=\"muted\">the query is not in the queries table</p>");
    for (int i = 0; i < truth.size(); i++) {
      s.append(item(marks.evidenceFound()[i], "found", "missed", q.evidence().get(i).paperId(), truth.get(i)));
    }
    s.append("</div><div><h4>Predicted spans (").append(spans.size()).append(")</h4>");
    if (root.finalAnswer() == null) s.append("<p class=\"muted\">no final answer</p>");
    for (int j = 0; j < spans.size(); j++) s.append(item(marks.spanOnEvidence()[j], "on evidence", "off evidence", null, spans.get(j)));
    return s.append("</div></div>").toString();
  }

  private static String item(boolean hit, String yes, String no, String paper, String text) {
    return "<div class=\"span " + (hit ? "hit" : "miss") + "\"><span class=\"mark\">" + (hit ? "\u2713 " + yes : "\u2717 " + no)
        + "</span>" + (paper == null ? "" : " <span class=\"muted\">" + Html.escape(paper) + "</span>")
        + Html.pre(Html.clip(text, CLIP)) + "</div>";
  }

  private void node(RolloutNode n, StringBuilder s, boolean open) {
    List<StepTrees.Turn> ts = turns.getOrDefault(n.nodeId(), List.of());
    s.append("<details class=\"node st-").append(Html.escape(n.status())).append("\" id=\"").append(anchor(step.step(), n.nodeId()))
        .append("\"").append(open ? " open" : "").append("><summary><b>").append(Html.escape(n.nodeId())).append("</b> ")
        .append("<span class=\"badge\">").append(Html.escape(n.status())).append("</span> depth ").append(n.depth())
        .append(", ").append(ts.size()).append(" turns, ").append(kids(n).size()).append(" children, ")
        .append(n.genTokens()).append(" tokens, ").append(String.format(Locale.ROOT, "%.1f s", n.latencyMs() / 1000.0))
        .append("</summary>");
    s.append("<details><summary>prompt</summary>").append(Html.pre(Html.clip(n.prompt(), CLIP))).append("</details>");
    for (StepTrees.Turn t : ts) turn(t, s);
    if (n.finalAnswer() != null) {
      s.append("<div class=\"answer\"><b>final answer</b>").append(Html.pre(Html.clip(n.finalAnswer(), CLIP))).append("</div>");
    }
    if (n.error() != null) s.append("<div class=\"err\"><b>error</b> ").append(Html.escape(n.error())).append("</div>");
    for (RolloutNode c : kids(n)) node(c, s, false);
    s.append("</details>");
  }

  private static void turn(StepTrees.Turn t, StringBuilder s) {
    s.append("<div class=\"turn\"><div class=\"turnhead\">turn ").append(t.turn()).append(" \u00b7 ")
        .append(Html.escape(t.finishReason())).append(t.truncated() ? " (cut by the token cap)" : "");
    if (t.promptTokens() >= 0) s.append(" \u00b7 ").append(t.promptTokens()).append(" prompt / ").append(t.responseTokens()).append(" response tokens");
    s.append(String.format(Locale.ROOT, " \u00b7 generate %.2f s, run %.2f s \u00b7 T %.2f, seed %d", t.genMs() / 1000.0,
        t.execMs() / 1000.0, t.temperature(), t.seed())).append("</div>");
    if (t.lastMessage() != null) {
      s.append("<details class=\"given\"><summary>given: last ").append(Html.escape(t.lastRole())).append(" message</summary>")
          .append(Html.pre(Html.clip(t.lastMessage(), CLIP))).append("</details>");
    }
    s.append("<details class=\"response\"").append(t.code().isEmpty() ? " open" : "").append("><summary>response (")
        .append(t.response().length()).append(" chars)</summary>").append(Html.pre(Html.clip(t.response(), CLIP))).append("</details>");
    for (String code : t.code()) s.append("<pre class=\"code\">").append(PythonHighlight.html(Html.clip(code, CLIP))).append("</pre>");
    if (t.code().isEmpty()) s.append("<div class=\"muted\">no code block</div>");
    if (t.observation() != null) {
      s.append("<pre class=\"obs").append(t.replError() ? " error" : "").append("\">").append(Html.escape(Html.clip(t.observation(), CLIP)))
          .append("</pre>");
    }
    s.append("</div>");
  }

  private List<RolloutNode> kids(RolloutNode n) {
    return children.getOrDefault(n.nodeId(), List.of());
  }

  List<RolloutNode> subtree(RolloutNode root) {
    List<RolloutNode> out = new ArrayList<>();
    List<RolloutNode> todo = new ArrayList<>(List.of(root));
    while (!todo.isEmpty()) {
      RolloutNode n = todo.remove(todo.size() - 1);
      out.add(n);
      todo.addAll(kids(n));
    }
    out.sort(Comparator.comparingInt(RolloutNode::depth));
    return out;
  }

  static String fact(String name, String value) {
    return "<span class=\"fact\"><span class=\"muted\">" + Html.escape(name) + "</span> " + Html.escape(value) + "</span>";
  }

  static String num(Double x) {
    return x == null ? "\u2013" : String.format(Locale.ROOT, "%.3f", x);
  }
}
