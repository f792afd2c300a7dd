package arbor.pipelines.training;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.xxhash64;

import arbor.synthesis.Queries;
import arbor.synthesis.SplitPlan;
import arbor.tables.Cols;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;

/**
 * A step's queries: {@code perStep} of the active {@code train} split, from (key, step) alone,
 * the key being the run id or {@code train.seed}. The split is ordered by a hash of (key, query
 * id) and cut in consecutive windows, step
 * after step, wrapping at its end, so every query comes round once per pass and a rerun of a
 * step takes the same queries.
 */
public final class StepQueries {
  private StepQueries() {}

  public static Dataset<Row> of(Dataset<Row> queries, String key, long step, int perStep) {
    Dataset<Row> split = Queries.active(queries).where(col(Queries.SPLIT).equalTo(lit(SplitPlan.TRAIN)));
    long n = split.count();
    if (n == 0) {
      throw new IllegalStateException("train: the queries table has no active query in the '" + SplitPlan.TRAIN
          + "' split; run synthesize (its split sizes) first");
    }
    if (perStep >= n) return split;
    // One window over the whole split: its size is the split's, a few thousand rows at most.
    var order = Window.orderBy(xxhash64(lit(key), col(Cols.QUERY_ID)), col(Cols.QUERY_ID));
    long start = Math.floorMod(step * perStep, n);
    Dataset<Row> ranked = split.withColumn("_rank", row_number().over(order).minus(1));
    return ranked.where(pmod(col("_rank").minus(lit(start)), lit(n)).lt(perStep)).drop("_rank");
  }
}
