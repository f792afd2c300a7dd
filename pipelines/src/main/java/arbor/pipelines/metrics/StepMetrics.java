package arbor.pipelines.metrics;

import static org.apache.spark.sql.functions.array_distinct;
import static org.apache.spark.sql.functions.array_intersect;
import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.collect_set;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.map;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import arbor.judge.ChildScores;
import arbor.judge.JudgeRoots;
import arbor.pipelines.advantages.Advantages;
import arbor.tables.Cols;
import arbor.tables.Metric;
import arbor.tables.Reward;
import arbor.tables.RolloutNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;

/**
 * A step's figures (method section 7) as {@code metrics} rows (run_id, step, name, value, at),
 * all computed in DataFrame aggregations:
 *
 * <ul>
 *   <li>{@code judge.*}: roots judged, mean reward, precision and recall of the scored roots, mean
 *       character-span precision, recall and F1, judge errors and infrastructure failures;
 *   <li>{@code rollouts.*}: trees, children per root, tree depth (mean, max), the share of roots
 *       that never recurse, nodes, turns and generated tokens per tree and node, root latency (the
 *       tree's wall time; mean, max), the share of nodes per status ({@code status_share.<status>},
 *       for the statuses present), and the child metrics: share of children that submitted,
 *       paper-selection F1 (papers delegated against papers holding evidence, mean over roots with
 *       children) and children's span F1 on evidence papers;
 *   <li>{@code advantages.*}: groups, the share whose rewards are all equal, roots scored and roots
 *       left out (no ok reward).
 * </ul>
 *
 * A figure with nothing to average (no children, say) has no row rather than a made-up value.
 */
public final class StepMetrics {
  private StepMetrics() {}

  private static final String[] STEP = {Cols.RUN_ID, Cols.STEP};

  /**
   * @param nodes {@code rollout_nodes} of the step
   * @param rewards {@code rewards} of the step
   * @param references {@link arbor.pipelines.judge.References#of} for the step's queries
   * @param roots {@link Advantages#rootAdvantages} of the step
   */
  public static Dataset<Row> of(Dataset<Row> nodes, Dataset<Row> rewards, Dataset<Row> references, Dataset<Row> roots) {
    List<Dataset<Row>> parts = new ArrayList<>();
    parts.add(judge(rewards));
    parts.add(trees(nodes));
    parts.add(nodeFigures(nodes));
    parts.add(statusShares(nodes));
    parts.add(children(nodes, references));
    parts.add(advantages(nodes, roots));
    Dataset<Row> all = parts.getFirst();
    for (Dataset<Row> p : parts.subList(1, parts.size())) all = all.unionByName(p);
    return all.where(col(Metric.VALUE).isNotNull().and(col(Metric.VALUE).isNaN().unary_$bang()))
        .select(col(Cols.RUN_ID), col(Cols.STEP), col(Metric.NAME), col(Metric.VALUE), current_timestamp().as(Metric.AT));
  }

  static Dataset<Row> judge(Dataset<Row> rewards) {
    Column ok = col(Reward.STATUS).equalTo(lit(Reward.OK));
    Map<String, Column> figures = new LinkedHashMap<>();
    figures.put("judge.roots", count(lit(1)));
    figures.put("judge.reward_mean", avg(when(ok, col(Reward.REWARD))));
    figures.put("judge.precision_mean", avg(when(ok, col(Reward.PRECISION))));
    figures.put("judge.recall_mean", avg(when(ok, col(Reward.RECALL))));
    figures.put("judge.span_precision", avg(col(Reward.SPAN_P)));
    figures.put("judge.span_recall", avg(col(Reward.SPAN_R)));
    figures.put("judge.span_f1", avg(col(Reward.SPAN_F1)));
    figures.put("judge.errors", sum(when(col(Reward.STATUS).equalTo(lit(Reward.JUDGE_ERROR)), 1).otherwise(0)));
    figures.put("judge.infra_failures", sum(when(col(Reward.STATUS).equalTo(lit(Reward.INFRA_FAILURE)), 1).otherwise(0)));
    return longForm(rewards.groupBy(col(Cols.RUN_ID), col(Cols.STEP)), figures);
  }

  static Dataset<Row> trees(Dataset<Row> nodes) {
    Column isChild = col(RolloutNode.DEPTH).equalTo(1);
    Dataset<Row> perTree = nodes.groupBy(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.ROOT_ID)).agg(
        sum(when(isChild, 1).otherwise(0)).as("children"),
        max(col(RolloutNode.DEPTH)).as("depth"),
        count(lit(1)).as("nodes"),
        sum(col(RolloutNode.GEN_TOKENS)).as("tokens"),
        max(when(col(RolloutNode.PARENT_ID).isNull(), col(RolloutNode.LATENCY_MS))).as("latency"));
    Map<String, Column> figures = new LinkedHashMap<>();
    figures.put("rollouts.trees", count(lit(1)));
    figures.put("rollouts.children_per_root", avg(col("children")));
    figures.put("rollouts.depth_mean", avg(col("depth")));
    figures.put("rollouts.depth_max", max(col("depth")));
    figures.put("rollouts.no_recursion_share", avg(when(col("children").equalTo(0), 1.0).otherwise(0.0)));
    figures.put("rollouts.nodes_per_tree", avg(col("nodes")));
    figures.put("rollouts.tokens_per_tree", avg(col("tokens")));
    figures.put("rollouts.latency_ms_mean", avg(col("latency")));
    figures.put("rollouts.latency_ms_max", max(col("latency")));
    return longForm(perTree.groupBy(col(Cols.RUN_ID), col(Cols.STEP)), figures);
  }

  static Dataset<Row> nodeFigures(Dataset<Row> nodes) {
    Column child = col(RolloutNode.PARENT_ID).isNotNull();
    Map<String, Column> figures = new LinkedHashMap<>();
    figures.put("rollouts.nodes", count(lit(1)));
    figures.put("rollouts.turns_per_node", avg(col(RolloutNode.TURNS)));
    figures.put("rollouts.tokens_per_node", avg(col(RolloutNode.GEN_TOKENS)));
    figures.put("rollouts.children_submitted_share",
        avg(when(child, when(col(RolloutNode.STATUS).equalTo(lit("final")), 1.0).otherwise(0.0))));
    return longForm(nodes.groupBy(col(Cols.RUN_ID), col(Cols.STEP)), figures);
  }

  static Dataset<Row> statusShares(Dataset<Row> nodes) {
    Dataset<Row> counts = nodes.groupBy(col(Cols.RUN_ID), col(Cols.STEP), col(RolloutNode.STATUS)).agg(count(lit(1)).as("n"));
    Dataset<Row> totals = nodes.groupBy(col(Cols.RUN_ID), col(Cols.STEP)).agg(count(lit(1)).as("total"));
    return counts.join(totals, STEP).select(col(Cols.RUN_ID), col(Cols.STEP),
        concat(lit("rollouts.status_share."), col(RolloutNode.STATUS)).as(Metric.NAME),
        col("n").divide(col("total")).cast("double").as(Metric.VALUE));
  }

  static Dataset<Row> children(Dataset<Row> nodes, Dataset<Row> references) {
    Dataset<Row> kids = nodes.where(col(RolloutNode.PARENT_ID).isNotNull())
        .groupBy(Cols.QUERY_ID)
        .agg(collect_list(struct(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.ROOT_ID), col(Cols.NODE_ID),
            col(RolloutNode.PROMPT).as(ChildScores.PROMPT), col(RolloutNode.FINAL_ANSWER).as(JudgeRoots.FINAL_ANSWER)))
            .as(ChildScores.CHILDREN));
    Dataset<Row> scores = kids.join(references, Cols.QUERY_ID)
        .select(col(Cols.QUERY_ID), col(JudgeRoots.QUESTION), col(JudgeRoots.EVIDENCE), col(JudgeRoots.PAPERS), col(ChildScores.CHILDREN))
        .mapPartitions(new ChildScores(), Encoders.row(ChildScores.OUTPUT));
    Map<String, Column> spanFigures = new LinkedHashMap<>();
    spanFigures.put("rollouts.child_span_f1", avg(when(col(ChildScores.ON_EVIDENCE), col(ChildScores.SPAN_F1))));
    Dataset<Row> span = longForm(scores.groupBy(col(Cols.RUN_ID), col(Cols.STEP)), spanFigures);

    Dataset<Row> rootQueries = nodes.where(col(RolloutNode.PARENT_ID).isNull())
        .select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID).as(Cols.ROOT_ID), col(Cols.QUERY_ID));
    Dataset<Row> evidencePapers = references.select(col(Cols.QUERY_ID),
        array_distinct(col(JudgeRoots.EVIDENCE).getField(JudgeRoots.PAPER_ID)).as("truth"));
    Dataset<Row> perRoot = scores.groupBy(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.ROOT_ID))
        .agg(collect_set(col(ChildScores.PAPER_ID)).as("delegated"))
        .join(rootQueries, new String[] {Cols.RUN_ID, Cols.STEP, Cols.ROOT_ID})
        .join(evidencePapers, Cols.QUERY_ID);
    // F1 of two sets: 2 |D and T| / (|D| + |T|).
    Column both = size(array_intersect(col("delegated"), col("truth")));
    Column f1 = when(size(col("delegated")).plus(size(col("truth"))).equalTo(0), 0.0)
        .otherwise(both.multiply(2.0).divide(size(col("delegated")).plus(size(col("truth")))));
    Map<String, Column> paperFigures = new LinkedHashMap<>();
    paperFigures.put("rollouts.child_paper_f1", avg(f1));
    return span.unionByName(longForm(perRoot.groupBy(col(Cols.RUN_ID), col(Cols.STEP)), paperFigures));
  }

  static Dataset<Row> advantages(Dataset<Row> nodes, Dataset<Row> roots) {
    Dataset<Row> groups = roots.groupBy(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.QUERY_ID))
        .agg(max(col(Advantages.FLAT)).as("flat"), count(lit(1)).as("scored"));
    Map<String, Column> figures = new LinkedHashMap<>();
    figures.put("advantages.groups", count(lit(1)));
    figures.put("advantages.flat_group_share", avg(when(col("flat"), 1.0).otherwise(0.0)));
    figures.put("advantages.scored_roots", sum(col("scored")));
    Dataset<Row> scored = longForm(groups.groupBy(col(Cols.RUN_ID), col(Cols.STEP)), figures);
    Dataset<Row> allRoots = nodes.where(col(RolloutNode.PARENT_ID).isNull()).groupBy(col(Cols.RUN_ID), col(Cols.STEP))
        .agg(count(lit(1)).as("roots"));
    Dataset<Row> scoredCount = roots.groupBy(col(Cols.RUN_ID), col(Cols.STEP)).agg(count(lit(1)).as("scored"));
    Dataset<Row> leftOut = allRoots.join(scoredCount, STEP, "left").select(col(Cols.RUN_ID), col(Cols.STEP),
        lit("advantages.left_out_roots").as(Metric.NAME),
        col("roots").minus(coalesce(col("scored"), lit(0L))).cast("double").as(Metric.VALUE));
    return scored.unionByName(leftOut);
  }

  /** Aggregates {@code figures} per step and turns the one wide row into (run_id, step, name, value) rows. */
  private static Dataset<Row> longForm(org.apache.spark.sql.RelationalGroupedDataset grouped, Map<String, Column> figures) {
    List<Column> aggs = new ArrayList<>();
    List<Column> entries = new ArrayList<>();
    int i = 0;
    for (var f : figures.entrySet()) {
      String alias = "f" + i++;
      aggs.add(f.getValue().cast("double").as(alias));
      entries.add(lit(f.getKey()));
      entries.add(col(alias));
    }
    Dataset<Row> wide = grouped.agg(aggs.getFirst(), aggs.subList(1, aggs.size()).toArray(new Column[0]));
    return wide.select(col(Cols.RUN_ID), col(Cols.STEP), explode(map(entries.toArray(new Column[0]))).as(new String[] {Metric.NAME, Metric.VALUE}));
  }
}
