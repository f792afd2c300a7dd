package arbor.jobs.view;

import arbor.judge.FinalAnswer;
import arbor.notebook.Html;
import arbor.tables.RolloutNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The viewer's static site for one run: an index of steps, a page per step (its trees in a
 * table a person can filter by status, reward and tier), a page per query of a step (the
 * query's group of trees, each drawn in full), and, for queries seen in several steps (an eval
 * run's checkpoints), a page that sets their trees side by side. Pages are written as each step
 * is read, so a long run never has to fit on the driver.
 */
final class ViewSite {
  /** The most recent steps a comparison page sets side by side. */
  static final int COMPARE_COLUMNS = 8;

  /** One line of the index per step. */
  record StepLine(long step, int trees, int queries, int nodes, Double meanReward, int flatGroups, int groups,
      Map<String, Integer> statuses) {}

  /** A tree as a comparison column shows it. */
  private record Card(long step, int sample, String html) {}

  private final Path dir;
  private final String runId;
  private final Map<String, Integer> stepsPerQuery;
  private final List<StepLine> lines = new ArrayList<>();
  private final Map<String, List<Card>> cards = new HashMap<>();
  private final Map<String, String> questions = new HashMap<>();

  /** @param stepsPerQuery in how many steps each query has trees (2 or more: a comparison page) */
  ViewSite(Path dir, String runId, Map<String, Integer> stepsPerQuery) {
    this.dir = dir;
    this.runId = runId;
    this.stepsPerQuery = stepsPerQuery;
    write("assets/view.css", Pages.CSS);
    write("assets/view.js", Pages.JS);
  }

  /** Writes the step's page and its queries' pages; returns the files written. */
  int addStep(StepTrees s, Long previous, Long next) {
    Map<String, List<RolloutNode>> children = new HashMap<>();
    for (RolloutNode n : s.nodes()) if (n.parentId() != null) children.computeIfAbsent(n.parentId(), k -> new ArrayList<>()).add(n);
    children.values().forEach(l -> l.sort(Comparator.comparingInt(RolloutNode::childIndex)));
    Map<String, List<StepTrees.Turn>> turns = new HashMap<>();
    for (StepTrees.Turn t : s.turns()) turns.computeIfAbsent(t.nodeId(), k -> new ArrayList<>()).add(t);
    turns.values().forEach(l -> l.sort(Comparator.comparingInt(StepTrees.Turn::turn)));
    TreeHtml trees = new TreeHtml(s, children, turns);

    Map<String, List<RolloutNode>> groups = new TreeMap<>();
    for (RolloutNode r : s.roots()) groups.computeIfAbsent(r.queryId(), k -> new ArrayList<>()).add(r);
    groups.values().forEach(l -> l.sort(Comparator.comparingInt(RolloutNode::sample)));
    int files = 1;
    for (var g : groups.entrySet()) {
      writeQuery(s, g.getKey(), g.getValue(), trees, previous, next);
      files++;
    }
    write(ViewPaths.stepPage(s.step()), stepPage(s, groups, trees, previous, next));
    lines.add(line(s, groups, trees));
    return files;
  }

  /** The index and the comparison pages: after the last step. */
  int finish() {
    int files = 1;
    for (var e : cards.entrySet()) {
      write(ViewPaths.comparePage(e.getKey()), comparePage(e.getKey(), e.getValue()));
      files++;
    }
    write("index.html", index());
    return files;
  }

  private String stepPage(StepTrees s, Map<String, List<RolloutNode>> groups, TreeHtml trees, Long previous, Long next) {
    TreeSet<String> statuses = new TreeSet<>();
    TreeSet<String> tiers = new TreeSet<>();
    StringBuilder rows = new StringBuilder();
    for (var g : groups.entrySet()) {
      StepTrees.Query q = s.queries().get(g.getKey());
      String tier = q == null ? "" : q.tier();
      tiers.add(tier);
      boolean flat = flat(s, g.getValue());
      for (RolloutNode r : g.getValue()) {
        statuses.add(r.status());
        StepTrees.Verdict v = s.verdicts().get(r.nodeId());
        Double reward = v == null ? null : v.reward();
        List<RolloutNode> all = trees.subtree(r);
        rows.append("<tr data-status=\"").append(Html.escape(r.status())).append("\" data-tier=\"").append(Html.escape(tier))
            .append("\" data-reward=\"").append(reward == null ? "" : reward).append("\">")
            .append("<td>").append(Pages.link(local(ViewPaths.queryPage(s.step(), r.queryId())), r.queryId()))
            .append(flat ? " <span class=\"flat\" title=\"every tree of this group got the same reward\">equal rewards</span>" : "")
            .append("</td><td>").append(Html.escape(tier)).append("</td><td>")
            .append(Html.escape(Html.clip(q == null ? r.prompt() : q.question(), 140))).append("</td><td class=\"n\">")
            .append(Pages.link(local(ViewPaths.tree(s.step(), r.queryId(), r.sample())), String.valueOf(r.sample())))
            .append("</td><td><span class=\"badge st-").append(Html.escape(r.status())).append("\">").append(Html.escape(r.status()))
            .append("</span></td><td class=\"n\">").append(TreeHtml.num(reward)).append("</td><td class=\"n\">")
            .append(TreeHtml.num(s.advantages().get(r.nodeId()))).append("</td><td class=\"n\">")
            .append(TreeHtml.num(v == null ? null : v.spanF1())).append("</td><td class=\"n\">").append(all.size())
            .append("</td><td class=\"n\">").append(all.stream().mapToLong(RolloutNode::genTokens).sum())
            .append("</td><td class=\"n\">").append(String.format(Locale.ROOT, "%.1f", r.latencyMs() / 1000.0)).append("</td></tr>\n");
      }
    }
    StringBuilder body = new StringBuilder("<div class=\"facts\">")
        .append(TreeHtml.fact("run", runId)).append(TreeHtml.fact("queries", String.valueOf(groups.size())))
        .append(TreeHtml.fact("trees", String.valueOf(s.roots().size()))).append(TreeHtml.fact("nodes", String.valueOf(s.nodes().size())))
        .append("</div>");
    body.append("<div class=\"filters\"><label>status <select id=\"f-status\"><option value=\"\">any</option>");
    for (String st : statuses) body.append("<option>").append(Html.escape(st)).append("</option>");
    body.append("</select></label><label>tier <select id=\"f-tier\"><option value=\"\">any</option>");
    for (String t : tiers) body.append("<option>").append(Html.escape(t)).append("</option>");
    body.append("</select></label><label>reward from <input id=\"f-min\" type=\"number\" step=\"0.05\" size=\"5\"></label>")
        .append("<label>to <input id=\"f-max\" type=\"number\" step=\"0.05\" size=\"5\"></label><span id=\"f-shown\"></span></div>");
    body.append("<table id=\"trees\"><thead><tr><th>query</th><th>tier</th><th>question</th><th class=\"n\">sample</th>"
        + "<th>status</th><th class=\"n\">reward</th><th class=\"n\">advantage</th><th class=\"n\">span F1</th>"
        + "<th class=\"n\">nodes</th><th class=\"n\">tokens</th><th class=\"n\">wall s</th></tr></thead><tbody>\n")
        .append(rows).append("</tbody></table>");
    return Pages.page("Step " + s.step() + " of " + runId, "../", stepNav(previous, next, "../"), body.toString());
  }

  private void writeQuery(StepTrees s, String queryId, List<RolloutNode> roots, TreeHtml trees, Long previous, Long next) {
    StepTrees.Query q = s.queries().get(queryId);
    String question = q == null ? roots.get(0).prompt() : q.question();
    questions.put(queryId, question);
    StringBuilder body = new StringBuilder("<div class=\"facts\">").append(TreeHtml.fact("query", queryId))
        .append(TreeHtml.fact("tier", q == null ? "\u2013" : q.tier())).append(TreeHtml.fact("paper group", q == null ? "\u2013" : q.groupId()))
        .append(TreeHtml.fact("step", String.valueOf(s.step()))).append("</div>");
    body.append("<p><b>Question.</b> ").append(Html.escape(question)).append("</p>");
    if (flat(s, roots)) body.append("<p><span class=\"flat\">equal rewards</span> every tree of this group got the same reward: its advantages are 0 and it teaches nothing this step.</p>");
    if (stepsPerQuery.getOrDefault(queryId, 1) > 1) {
      body.append("<p>").append(Pages.link("../" + ViewPaths.comparePage(queryId), "This query's trees in every step, side by side")).append("</p>");
    }
    body.append("<table><thead><tr><th class=\"n\">sample</th><th>status</th><th class=\"n\">reward</th><th class=\"n\">advantage</th>"
        + "<th class=\"n\">span F1</th></tr></thead><tbody>");
    for (RolloutNode r : roots) {
      StepTrees.Verdict v = s.verdicts().get(r.nodeId());
      body.append("<tr><td class=\"n\">").append(Pages.link("#tree-" + r.sample(), String.valueOf(r.sample()))).append("</td><td>")
          .append(Html.escape(r.status())).append("</td><td class=\"n\">").append(TreeHtml.num(v == null ? null : v.reward()))
          .append("</td><td class=\"n\">").append(TreeHtml.num(s.advantages().get(r.nodeId()))).append("</td><td class=\"n\">")
          .append(TreeHtml.num(v == null ? null : v.spanF1())).append("</td></tr>");
    }
    body.append("</tbody></table>");
    for (RolloutNode r : roots) {
      body.append("<section class=\"tree\" id=\"tree-").append(r.sample()).append("\"><h2>Tree ").append(r.sample())
          .append(" <span class=\"muted\">").append(Html.escape(r.nodeId())).append("</span></h2>").append(trees.tree(r)).append("</section>\n");
      if (stepsPerQuery.getOrDefault(queryId, 1) > 1) cards.computeIfAbsent(queryId, k -> new ArrayList<>()).add(card(s, r, trees));
    }
    String nav = stepNav(previous, next, "../") + Pages.link("index.html", "step " + s.step());
    write(ViewPaths.queryPage(s.step(), queryId), Pages.page("Query " + queryId + ", step " + s.step(), "../", nav, body.toString()));
  }

  /** What a comparison column shows of a tree: its outcome, its answer, the root's code, a link to the whole. */
  private Card card(StepTrees s, RolloutNode root, TreeHtml trees) {
    StepTrees.Verdict v = s.verdicts().get(root.nodeId());
    StringBuilder h = new StringBuilder("<h4>").append(Pages.link("../" + ViewPaths.tree(s.step(), root.queryId(), root.sample()),
        "sample " + root.sample())).append(" <span class=\"badge st-").append(Html.escape(root.status())).append("\">")
        .append(Html.escape(root.status())).append("</span></h4><div class=\"facts\">")
        .append(TreeHtml.fact("reward", TreeHtml.num(v == null ? null : v.reward())))
        .append(TreeHtml.fact("span F1", TreeHtml.num(v == null ? null : v.spanF1())))
        .append(TreeHtml.fact("nodes", String.valueOf(trees.subtree(root).size()))).append("</div>");
    for (StepTrees.Turn t : s.turns()) {
      if (!t.nodeId().equals(root.nodeId())) continue;
      for (String code : t.code()) h.append("<pre class=\"code\">").append(PythonHighlight.html(Html.clip(code, 1500))).append("</pre>");
    }
    List<String> spans = FinalAnswer.spans(root.finalAnswer());
    h.append("<div class=\"muted\">").append(spans.size()).append(" predicted spans</div>");
    for (String span : spans) h.append(Html.pre(Html.clip(span, 400)));
    return new Card(s.step(), root.sample(), h.toString());
  }

  private String comparePage(String queryId, List<Card> all) {
    TreeMap<Long, List<Card>> bySteps = new TreeMap<>();
    for (Card c : all) bySteps.computeIfAbsent(c.step(), k -> new ArrayList<>()).add(c);
    while (bySteps.size() > COMPARE_COLUMNS) bySteps.pollFirstEntry();
    StringBuilder body = new StringBuilder("<p><b>Question.</b> ").append(Html.escape(questions.get(queryId))).append("</p>");
    if (bySteps.size() < stepsPerQuery.get(queryId)) {
      body.append("<p class=\"muted\">The last ").append(COMPARE_COLUMNS).append(" of ").append(stepsPerQuery.get(queryId))
          .append(" steps.</p>");
    }
    body.append("<div class=\"columns\">");
    for (var e : bySteps.entrySet()) {
      body.append("<div><h3>").append(Pages.link("../" + ViewPaths.queryPage(e.getKey(), queryId), "step " + e.getKey())).append("</h3>");
      e.getValue().stream().sorted(Comparator.comparingInt(Card::sample)).forEach(c -> body.append(c.html()));
      body.append("</div>");
    }
    body.append("</div>");
    return Pages.page("Query " + queryId + " across steps", "../", "", body.toString());
  }

  private String index() {
    StringBuilder body = new StringBuilder("<p>Run <b>").append(Html.escape(runId)).append("</b>: ").append(lines.size())
        .append(" steps with rollout trees. A step's page lists its trees; a query's page draws its group's trees.</p>");
    body.append("<table><thead><tr><th class=\"n\">step</th><th class=\"n\">queries</th><th class=\"n\">trees</th>"
        + "<th class=\"n\">nodes</th><th class=\"n\">mean reward</th><th class=\"n\">equal-reward groups</th><th>root statuses</th></tr></thead><tbody>");
    for (StepLine l : lines) {
      body.append("<tr><td class=\"n\">").append(Pages.link(ViewPaths.stepPage(l.step()), String.valueOf(l.step())))
          .append("</td><td class=\"n\">").append(l.queries()).append("</td><td class=\"n\">").append(l.trees())
          .append("</td><td class=\"n\">").append(l.nodes()).append("</td><td class=\"n\">").append(TreeHtml.num(l.meanReward()))
          .append("</td><td class=\"n\">").append(l.flatGroups()).append(" of ").append(l.groups()).append("</td><td>");
      l.statuses().forEach((k, v) -> body.append("<span class=\"badge st-").append(Html.escape(k)).append("\">")
          .append(Html.escape(k)).append(" ").append(v).append("</span> "));
      body.append("</td></tr>");
    }
    body.append("</tbody></table>");
    if (!cards.isEmpty()) {
      body.append("<h2>Queries seen in several steps</h2><ul>");
      new TreeSet<>(cards.keySet()).forEach(q -> body.append("<li>").append(Pages.link(ViewPaths.comparePage(q), q))
          .append(" <span class=\"muted\">").append(Html.escape(Html.clip(questions.get(q), 120))).append("</span></li>"));
      body.append("</ul>");
    }
    return Pages.page("Rollouts of " + runId, "", "", body.toString());
  }

  private StepLine line(StepTrees s, Map<String, List<RolloutNode>> groups, TreeHtml trees) {
    Map<String, Integer> statuses = new TreeMap<>();
    double sum = 0;
    int scored = 0;
    for (RolloutNode r : s.roots()) {
      statuses.merge(r.status(), 1, Integer::sum);
      StepTrees.Verdict v = s.verdicts().get(r.nodeId());
      if (v != null && v.reward() != null) {
        sum += v.reward();
        scored++;
      }
    }
    int flat = (int) groups.values().stream().filter(g -> flat(s, g)).count();
    return new StepLine(s.step(), s.roots().size(), groups.size(), s.nodes().size(), scored == 0 ? null : sum / scored, flat,
        groups.size(), statuses);
  }

  /** A group of two or more scored trees whose rewards are all equal (no advantage to learn from). */
  static boolean flat(StepTrees s, List<RolloutNode> group) {
    List<Double> rewards = group.stream().map(r -> s.verdicts().get(r.nodeId())).filter(Objects::nonNull)
        .map(StepTrees.Verdict::reward).filter(Objects::nonNull).toList();
    return rewards.size() > 1 && rewards.stream().distinct().count() == 1;
  }

  private static String stepNav(Long previous, Long next, String root) {
    return (previous == null ? "" : Pages.link(root + ViewPaths.stepPage(previous), "\u2190 step " + previous))
        + (next == null ? "" : Pages.link(root + ViewPaths.stepPage(next), "step " + next + " \u2192"));
  }

  /** A path under the root, as seen from a page in a step's folder. */
  private static String local(String pathFromRoot) {
    return pathFromRoot.substring(pathFromRoot.indexOf('/') + 1);
  }

  private void write(String relative, String content) {
    try {
      Path file = dir.resolve(relative);
      Files.createDirectories(file.getParent());
      Files.writeString(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException("view: could not write " + dir.resolve(relative), e);
    }
  }
}
