package arbor.rlm.runtime;

import static arbor.tables.Cols.*;

import arbor.rlm.RlmContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;

/**
 * One {@link TreeRows#TASK} row: a tree to run, with its question, its group's papers, the policy
 * version that writes it and the run and step its seed is drawn from. The task's columns are read
 * here and nowhere else.
 */
public record TreeTask(String runId, long step, String queryId, int sample, String question, List<String> paperIds,
    List<String> paperTexts, long policyVersion, String policyRun, String seedRun, long seedStep) {

  public static TreeTask of(Row row) {
    return new TreeTask(row.getAs(RUN_ID), row.<Long>getAs(STEP), row.getAs(QUERY_ID), row.<Integer>getAs(SAMPLE),
        row.getAs(TreeRows.QUESTION), row.getList(row.fieldIndex(TreeRows.PAPER_IDS)),
        row.getList(row.fieldIndex(TreeRows.PAPER_TEXTS)), row.<Long>getAs(POLICY_VERSION),
        row.getAs(TreeRows.POLICY_RUN), row.getAs(TreeRows.SEED_RUN), row.<Long>getAs(TreeRows.SEED_STEP));
  }

  /** The query's papers as the tree's context: a dict of paper id -> noisy text, or one paper's text alone. */
  public RlmContext context() {
    if (paperIds.size() != paperTexts.size() || paperIds.isEmpty()) {
      throw new IllegalArgumentException("query " + queryId + " has " + paperIds.size() + " paper ids and "
          + paperTexts.size() + " texts; a query needs its group's papers");
    }
    if (paperIds.size() == 1) {
      return new RlmContext.Single(paperTexts.getFirst());
    }
    Map<String, String> papers = new LinkedHashMap<>();
    for (int i = 0; i < paperIds.size(); i++) {
      papers.put(paperIds.get(i), paperTexts.get(i));
    }
    return new RlmContext.Papers(papers);
  }

  /** How the executor's log names the tree. */
  String name() {
    return queryId + "#" + sample;
  }
}
