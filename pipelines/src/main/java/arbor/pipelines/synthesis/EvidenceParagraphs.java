package arbor.pipelines.synthesis;

import arbor.tables.Papers;
import arbor.synthesis.Queries;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.posexplode;
import static org.apache.spark.sql.functions.struct;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Each query's evidence widened to the whole clean paragraphs that hold it: the unit the splits
 * keep apart ({@link SplitPlan#keys}). An annotator may mark part of a paragraph, and another
 * query over an overlapping group the whole of it; as written they are two texts, yet one
 * paragraph, which must not be in two splits. Evidence that no clean paragraph of its paper
 * holds (it always should) stays as it is.
 */
public final class EvidenceParagraphs {
  private EvidenceParagraphs() {}

  /**
   * @param queries rows with {@code query_id} and {@code evidence} (paper id and text), other columns kept
   * @param papers rows with {@code paper_id} and {@code clean_paragraphs}
   * @return the same rows, {@code evidence} holding each text's paragraph (in the same order)
   */
  public static Dataset<Row> widen(Dataset<Row> queries, Dataset<Row> papers) {
    Dataset<Row> paragraphs = papers.select(col(Papers.PAPER_ID).as("holder_id"), col(Papers.CLEAN_PARAGRAPHS));
    Dataset<Row> widened = queries.select(col(Queries.QUERY_ID), posexplode(col(Queries.EVIDENCE)).as(new String[] {"pos", "e"}))
        .join(paragraphs, col("e.paper_id").equalTo(col("holder_id")), "left")
        .select(col(Queries.QUERY_ID), struct(col("pos"), struct(col("e.paper_id").as("paper_id"),
            coalesce(expr("try_element_at(filter(clean_paragraphs, p -> instr(p, e.text) > 0), 1)"), col("e.text")).as("text"))
            .as("e")).as("at"))
        .groupBy(Queries.QUERY_ID)
        .agg(expr("transform(array_sort(collect_list(at)), a -> a.e)").as(Queries.EVIDENCE));
    return queries.drop(Queries.EVIDENCE).join(widened, Queries.QUERY_ID);
  }
}
