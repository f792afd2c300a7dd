package arbor.jobs.report;

import arbor.jobs.stats.GroupBootstrap;
import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;

import arbor.synthesis.Queries;
import arbor.tables.Cols;
import arbor.tables.Eval;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The held-out reward of each evaluated version: per (policy, split, step) of the {@code eval}
 * rows, the mean judge reward over queries (each query the mean of its samples) with the
 * {@link GroupBootstrap} interval over the paper groups the queries were made from.
 */
final class HeldOut {
  private HeldOut() {}

  /** One evaluated version. {@code groupsKnown}: false when queries stood in for their groups. */
  record Point(String policy, String split, long step, GroupBootstrap.Interval interval, boolean groupsKnown) {
    String series() {
      return policy + " / " + split;
    }
  }

  /**
   * @param eval {@code eval} rows of the run
   * @param queryGroups (query_id, group_id) of the queries, or null when there is no queries table;
   *     a query without a group is its own group
   */
  static List<Point> of(Dataset<Row> eval, Dataset<Row> queryGroups, GroupBootstrap bootstrap) {
    // A tree without a reward (judge error, infrastructure failure) is not a score of 0: left out.
    Dataset<Row> perQuery = eval.where(col(Eval.REWARD).isNotNull())
        .groupBy(Eval.POLICY, Eval.SPLIT, Cols.STEP, Cols.QUERY_ID).agg(avg(Eval.REWARD).as("score"));
    Dataset<Row> grouped = queryGroups == null
        ? perQuery.withColumn("group", col(Cols.QUERY_ID))
        : perQuery.join(queryGroups.select(col(Queries.QUERY_ID).as("q"), col(Queries.GROUP_ID)),
            col(Cols.QUERY_ID).equalTo(col("q")), "left")
            .withColumn("group", coalesce(col(Queries.GROUP_ID), col(Cols.QUERY_ID)));
    Map<List<Object>, List<Row>> byVersion = new LinkedHashMap<>();
    for (Row r : grouped.select(col(Eval.POLICY), col(Eval.SPLIT), col(Cols.STEP), col("group"), col("score"),
            col(Cols.QUERY_ID))
        .orderBy(Eval.POLICY, Eval.SPLIT, Cols.STEP, Cols.QUERY_ID).collectAsList()) {
      byVersion.computeIfAbsent(List.of(r.getString(0), r.getString(1), r.getLong(2)), k -> new ArrayList<>()).add(r);
    }
    List<Point> out = new ArrayList<>();
    byVersion.forEach((key, rows) -> {
      String[] groups = rows.stream().map(r -> r.getString(3)).toArray(String[]::new);
      double[] scores = rows.stream().mapToDouble(r -> r.getDouble(4)).toArray();
      out.add(new Point((String) key.get(0), (String) key.get(1), (Long) key.get(2), bootstrap.of(groups, scores),
          queryGroups != null));
    });
    return out;
  }
}
