package arbor.pipelines.judge;

import arbor.tables.Papers;
import arbor.judge.JudgeRoots;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.posexplode;
import static org.apache.spark.sql.functions.sort_array;
import static org.apache.spark.sql.functions.struct;

import arbor.tables.Cols;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * What judging a query's roots needs, one row per query: its question and evidence (from
 * {@code queries}) and the noisy text of its group's papers in group order (from
 * {@code paper_groups} and {@code papers}), in the columns {@link JudgeRoots} reads.
 */
public final class References {
  private References() {}

  /**
   * @param queries query_id, group_id, question, evidence (paper_id, text)
   * @param groups group_id, paper_ids
   * @param papers paper_id, noisy_text
   */
  public static Dataset<Row> of(Dataset<Row> queries, Dataset<Row> groups, Dataset<Row> papers) {
    Dataset<Row> members = groups.select(col("group_id"), posexplode(col("paper_ids")).as(new String[] {"pos", Papers.PAPER_ID}))
        .join(papers.select(col(Papers.PAPER_ID), col(JudgeRoots.NOISY_TEXT)), Papers.PAPER_ID);
    Dataset<Row> groupPapers = members.groupBy("group_id")
        .agg(sort_array(collect_list(struct(col("pos"), col(Papers.PAPER_ID), col(JudgeRoots.NOISY_TEXT)))).as("ranked"))
        .select(col("group_id"), col("ranked").getField(Papers.PAPER_ID).as("ids"), col("ranked").getField(JudgeRoots.NOISY_TEXT).as("texts"));
    return queries.select(col(Cols.QUERY_ID), col("group_id"), col(JudgeRoots.QUESTION), col(JudgeRoots.EVIDENCE))
        .join(groupPapers, "group_id")
        .select(col(Cols.QUERY_ID), col(JudgeRoots.QUESTION), col(JudgeRoots.EVIDENCE),
            org.apache.spark.sql.functions.arrays_zip(col("ids"), col("texts")).as("zipped"))
        .selectExpr(Cols.QUERY_ID, JudgeRoots.QUESTION, JudgeRoots.EVIDENCE,
            "transform(zipped, z -> named_struct('" + JudgeRoots.PAPER_ID + "', z.ids, '" + JudgeRoots.NOISY_TEXT
                + "', z.texts)) as " + JudgeRoots.PAPERS);
  }
}
