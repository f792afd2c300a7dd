package arbor.notebook;

import static org.apache.spark.sql.functions.col;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.Row;

/**
 * One query beside the papers of its group: the question and tier on top, then a column per
 * paper (the group's order: seed first) showing its evidence paragraphs highlighted, with
 * {@code context} paragraphs either side and the gaps counted. A paper the query does not cite
 * shows its first paragraphs, dimmed.
 */
public final class EvidenceView {
  private EvidenceView() {}

  public record Paper(String paperId, String title, List<String> paragraphs) {}

  public record Evidence(String paperId, String text) {}

  public record Query(String queryId, String question, String tier, List<Evidence> evidence) {}

  /** The query {@code queryId} and its group's papers, read from the warehouse. */
  public static String forQuery(Notebook nb, String queryId, int context) {
    List<Row> q = nb.sql("SELECT q.query_id, q.question, q.tier, q.evidence, g.paper_ids FROM queries q "
        + "JOIN paper_groups g ON q.group_id = g.group_id").where(col("query_id").equalTo(queryId)).collectAsList();
    if (q.isEmpty()) throw new IllegalArgumentException("no query '" + queryId + "' in the queries table");
    Row row = q.get(0);
    List<Evidence> evidence = new ArrayList<>();
    for (Row e : row.<Row>getList(3)) evidence.add(new Evidence(e.getAs("paper_id"), e.getAs("text")));
    List<String> ids = row.getList(4);
    java.util.Map<String, Row> byId = new java.util.HashMap<>();
    for (Row p : nb.sql("SELECT paper_id, title, clean_paragraphs FROM papers").where(col("paper_id").isin(ids.toArray())).collectAsList()) {
      byId.put(p.getString(0), p);
    }
    List<Paper> papers = new ArrayList<>();
    for (String id : ids) {
      Row p = byId.get(id);
      if (p == null) throw new IllegalStateException("the group of query '" + queryId + "' names paper '" + id + "', which the papers table lacks");
      papers.add(new Paper(id, p.getString(1), p.getList(2)));
    }
    return render(new Query(row.getString(0), row.getString(1), row.getString(2), evidence), papers, context);
  }

  public static String render(Query query, List<Paper> papers, int context) {
    if (context < 0) throw new IllegalArgumentException("context must be >= 0, got " + context);
    StringBuilder head = new StringBuilder("<div><b>").append(Html.escape(query.queryId())).append("</b> [")
        .append(Html.escape(query.tier())).append(", ").append(query.evidence().size()).append(" evidence paragraphs from ")
        .append(query.evidence().stream().map(Evidence::paperId).distinct().count()).append(" of ")
        .append(papers.size()).append(" papers]<br><span style=\"font-size:15px\">")
        .append(Html.escape(query.question())).append("</span></div>");
    List<String> columns = new ArrayList<>();
    for (Paper p : papers) columns.add(paperColumn(p, query.evidence(), context));
    return head + Html.columns(columns);
  }

  static String paperColumn(Paper paper, List<Evidence> evidence, int context) {
    Set<String> cited = new HashSet<>();
    for (Evidence e : evidence) if (e.paperId().equals(paper.paperId())) cited.add(e.text().strip());
    List<String> paras = paper.paragraphs();
    boolean[] isEvidence = new boolean[paras.size()];
    boolean[] shown = new boolean[paras.size()];
    int found = 0;
    for (int i = 0; i < paras.size(); i++) {
      if (cited.contains(paras.get(i).strip())) {
        isEvidence[i] = true;
        found++;
        for (int j = Math.max(0, i - context); j <= Math.min(paras.size() - 1, i + context); j++) shown[j] = true;
      }
    }
    StringBuilder s = new StringBuilder("<div><b>").append(Html.escape(paper.title())).append("</b><br><code>")
        .append(Html.escape(paper.paperId())).append("</code>, ").append(paras.size()).append(" paragraphs, ")
        .append(found).append(" evidence</div>");
    if (found < cited.size()) {
      s.append("<p style=\"color:#b00\">").append(cited.size() - found).append(" evidence text(s) match no paragraph of this paper</p>");
    }
    if (found == 0) {
      for (int i = 0; i < Math.min(2, paras.size()); i++) {
        s.append("<p style=\"color:#888\">[").append(i).append("] ").append(Html.escape(Html.clip(paras.get(i), 400))).append("</p>");
      }
      return s.append("<p style=\"color:#888\"><i>not cited by this query</i></p>").toString();
    }
    int skipped = 0;
    for (int i = 0; i < paras.size(); i++) {
      if (!shown[i]) { skipped++; continue; }
      if (skipped > 0) s.append(gap(skipped));
      skipped = 0;
      String style = isEvidence[i] ? "background:#fff3a0;padding:2px" : "color:#555";
      s.append("<p style=\"").append(style).append("\">[").append(i).append("] ")
          .append(Html.escape(isEvidence[i] ? paras.get(i) : Html.clip(paras.get(i), 300))).append("</p>");
    }
    if (skipped > 0) s.append(gap(skipped));
    return s.toString();
  }

  private static String gap(int n) {
    return "<p style=\"color:#999\">\u2026 " + n + " paragraph" + (n == 1 ? "" : "s") + " \u2026</p>";
  }
}
