package arbor.jobs.report;

import static org.apache.spark.sql.functions.col;

import arbor.pipelines.eval.Evaluate;
import arbor.jobs.view.ViewPaths;
import arbor.notebook.Html;
import arbor.tables.Cols;
import arbor.tables.Eval;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The best and the worst held-out trees as HTML tables, each row linking to the tree in the
 * rollout viewer of its eval run ({@code RUN-eval-POLICY-SPLIT}), so a reader goes from a number
 * to what the policy actually did.
 */
final class TreeTable {
  private TreeTable() {}

  private static final String[] COLUMNS = {Eval.REWARD, Eval.SPAN_F1, Eval.POLICY, Eval.SPLIT, Cols.STEP,
      Cols.QUERY_ID, Cols.SAMPLE, Eval.TIER, Eval.CHILDREN, Eval.NODES, Eval.GEN_TOKENS, Eval.STATUS};

  /**
   * @param eval {@code eval} rows of the run
   * @param run the training run
   * @param viewerRoot an eval run's id to the href of its viewer's root folder (ending in '/')
   * @param n trees per table
   */
  static String html(Dataset<Row> eval, String run, Function<String, String> viewerRoot, int n) {
    Dataset<Row> scored = eval.where(col(Eval.REWARD).isNotNull());
    long trees = scored.count();
    if (trees == 0) return "<p>No judged held-out trees yet: run <code>bin/arbor eval --run "
        + Html.escape(run) + "</code>.</p>\n";
    // Ties broken by query and sample, so a rerun over the same rows lists the same trees.
    List<Row> best = top(scored, true, n);
    if (trees <= n) return "<h3>All " + trees + ", best first</h3>\n" + table(best, run, viewerRoot);
    // The worst table never repeats a tree of the best one.
    List<Row> worst = top(scored, false, (int) Math.min(n, trees - n));
    return "<h3>Best " + best.size() + "</h3>\n" + table(best, run, viewerRoot)
        + "<h3>Worst " + worst.size() + "</h3>\n" + table(worst, run, viewerRoot);
  }

  /** The first {@code n} trees best first ({@code best}) or exactly the reverse order, so the two never meet. */
  private static List<Row> top(Dataset<Row> scored, boolean best, int n) {
    Column[] order = Arrays.stream(new String[] {Eval.REWARD, Eval.POLICY, Eval.SPLIT, Cols.STEP, Cols.QUERY_ID,
        Cols.SAMPLE}).map(c -> c.equals(Eval.REWARD) == best ? col(c).desc() : col(c).asc()).toArray(Column[]::new);
    return scored.orderBy(order)
        .select(Arrays.stream(COLUMNS).map(c -> col(c)).toArray(Column[]::new)).limit(n).collectAsList();
  }

  private static String table(List<Row> rows, String run, Function<String, String> viewerRoot) {
    StringBuilder t = new StringBuilder("<table class=\"trees\">\n<tr><th>reward</th><th>span F1</th><th>policy</th>"
        + "<th>split</th><th>step</th><th>query</th><th>sample</th><th>tier</th><th>children</th><th>nodes</th>"
        + "<th>tokens</th><th>status</th><th>tree</th></tr>\n");
    for (Row r : rows) {
      String policy = r.getString(2);
      String split = r.getString(3);
      long step = r.getLong(4);
      String query = r.getString(5);
      int sample = r.getInt(6);
      String href = viewerRoot.apply(Evaluate.evalRunId(run, policy, split)) + ViewPaths.tree(step, query, sample);
      t.append(String.format(Locale.ROOT,
          "<tr><td>%.3f</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%d</td><td>%s</td>"
              + "<td>%d</td><td>%d</td><td>%d</td><td>%s</td><td><a href=\"%s\">view</a></td></tr>%n",
          r.getDouble(0), r.isNullAt(1) ? "-" : String.format(Locale.ROOT, "%.3f", r.getDouble(1)),
          Html.escape(policy), Html.escape(split), step, Html.escape(query), sample, Html.escape(r.getString(7)),
          r.getInt(8), r.getInt(9), r.getLong(10), Html.escape(r.getString(11)), Html.escape(href)));
    }
    return t.append("</table>\n").toString();
  }
}
