package arbor.pipelines.synthesis;

import arbor.tables.Papers;
import arbor.synthesis.EvidenceRecheck;
import arbor.synthesis.Queries;
import static org.apache.spark.sql.functions.*;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;

/**
 * The queries whose evidence no longer holds in their papers' current text: queries and papers
 * in, {@code (query_id, reason)} out, one row per stale active query with its first reason.
 * Evidence holds when it is verbatim in a clean paragraph of its paper and found in the paper's
 * noisy text ({@link EvidenceRecheck}); a paper that changed can break either, a paper that
 * disappeared breaks both.
 */
public final class Recheck {
  private Recheck() {}

  public static Dataset<Row> stale(Dataset<Row> queries, Dataset<Row> papers) {
    UserDefinedFunction holds = udf(new EvidenceRecheck(), DataTypes.StringType);
    Dataset<Row> evidence = Queries.active(queries)
        .select(col(Queries.QUERY_ID), explode(col(Queries.EVIDENCE)).as("e"))
        .select(col(Queries.QUERY_ID), col("e.paper_id").as("paper_id"), col("e.text").as("text"));
    return evidence.join(papers.select(Papers.PAPER_ID, Papers.CLEAN_PARAGRAPHS, Papers.NOISY_TEXT),
            scala.jdk.javaapi.CollectionConverters.asScala(java.util.List.of(Papers.PAPER_ID)).toSeq(), "left")
        .withColumn("problem", holds.apply(col("text"), col(Papers.CLEAN_PARAGRAPHS), col(Papers.NOISY_TEXT)))
        .where(col("problem").isNotNull())
        .groupBy(Queries.QUERY_ID)
        .agg(min(concat(col("problem"), lit(" ("), col(Papers.PAPER_ID), lit(")"))).as(Queries.RETIRED_REASON));
  }
}
