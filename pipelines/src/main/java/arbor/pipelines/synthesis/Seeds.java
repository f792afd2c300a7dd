package arbor.pipelines.synthesis;

import arbor.tables.Papers;
import static org.apache.spark.sql.functions.*;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Which papers seed groups: a seeded random order (a hash of the seed and the paper id), so the
 * draw is reproducible and a paper's place in it never depends on the other papers.
 */
public final class Seeds {
  private Seeds() {}

  /** The first {@code n} papers in the seeded order: one column, {@code paper_id}. */
  public static Dataset<Row> draw(Dataset<Row> papers, long n, long seed) {
    return papers.select(Papers.PAPER_ID)
        .withColumn("_order", xxhash64(lit(seed), col(Papers.PAPER_ID)))
        .orderBy(col("_order"), col(Papers.PAPER_ID)).limit((int) Math.min(n, Integer.MAX_VALUE)).select(Papers.PAPER_ID);
  }

  /** The first {@code ceil(fraction * count)} papers of {@code papers} in the seeded order. */
  public static Dataset<Row> fraction(Dataset<Row> papers, double fraction, long seed) {
    long count = papers.count();
    // The epsilon keeps 0.3 x 10 at 3 where floating point makes it 3.0000000000000004.
    return draw(papers, (long) Math.ceil(fraction * count - 1e-9), seed);
  }
}
