package arbor.jobs.report;

import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import arbor.tables.Cols;
import arbor.tables.Metric;
import arbor.tables.Reward;
import arbor.tables.RolloutNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The training run's figures per step: the training reward and the panels of the training grid.
 * Each comes from its {@code metrics} row; a step whose metrics lack it (a run from before the
 * metric existed, a step cut short) gets it from the {@code rewards} or {@code rollout_nodes}
 * rows of that step instead, so the plots are never emptier than the tables.
 */
final class TrainingFigures {
  private TrainingFigures() {}

  /** A panel: its title and the metric it plots. */
  record Panel(String title, String metric) {}

  static final String REWARD = "judge.reward_mean";

  /** The training grid, in reading order. */
  static final List<Panel> PANELS = List.of(
      new Panel("KL to the reference", "learner.kl"),
      new Panel("clip fraction", "learner.clip_fraction"),
      new Panel("gradient norm", "learner.grad_norm"),
      new Panel("entropy", "learner.entropy"),
      new Panel("tokens per tree", "rollouts.tokens_per_tree"),
      new Panel("children per root", "rollouts.children_per_root"),
      new Panel("share of groups with equal rewards", "advantages.flat_group_share"),
      new Panel("tree depth", "rollouts.depth_mean"));

  /**
   * Metric name to its line (step to value) for {@link #REWARD} and every panel's metric.
   *
   * @param metrics {@code metrics} rows of the run
   * @param rewards {@code rewards} rows of the run, or null
   * @param nodes {@code rollout_nodes} rows of the run, or null
   */
  static Map<String, TreeMap<Long, Double>> of(Dataset<Row> metrics, Dataset<Row> rewards, Dataset<Row> nodes) {
    List<String> names = new ArrayList<>(List.of(REWARD));
    PANELS.forEach(p -> names.add(p.metric()));
    Map<String, TreeMap<Long, Double>> lines = new LinkedHashMap<>();
    names.forEach(n -> lines.put(n, new TreeMap<>()));
    for (Row r : metrics.where(col(Metric.NAME).isin(names.toArray()))
        .select(Metric.NAME, Cols.STEP, Metric.VALUE).collectAsList()) {
      lines.get(r.getString(0)).put(r.getLong(1), r.getDouble(2));
    }
    if (rewards != null) fill(lines, fromRewards(rewards));
    if (nodes != null) fill(lines, fromNodes(nodes));
    return lines;
  }

  private static void fill(Map<String, TreeMap<Long, Double>> lines, Dataset<Row> nameStepValue) {
    for (Row r : nameStepValue.collectAsList()) {
      if (!r.isNullAt(2)) lines.get(r.getString(0)).putIfAbsent(r.getLong(1), r.getDouble(2));
    }
  }

  /** Mean ok reward per step, and the share of query groups (two or more ok rewards) whose rewards are all equal. */
  private static Dataset<Row> fromRewards(Dataset<Row> rewards) {
    Dataset<Row> ok = rewards.where(col(Reward.STATUS).equalTo(Reward.OK));
    Dataset<Row> reward = ok.groupBy(Cols.STEP).agg(avg(Reward.REWARD).as("value"))
        .select(lit(REWARD).as("name"), col(Cols.STEP), col("value"));
    // Equal rewards give every tree of the group a zero advantage: the group teaches nothing.
    Dataset<Row> flat = ok.groupBy(Cols.STEP, Cols.QUERY_ID)
        .agg(count("*").as("n"), min(Reward.REWARD).as("lo"), max(Reward.REWARD).as("hi"))
        .where(col("n").geq(2))
        .groupBy(Cols.STEP).agg(avg(when(col("lo").equalTo(col("hi")), 1.0).otherwise(0.0)).as("value"))
        .select(lit("advantages.flat_group_share").as("name"), col(Cols.STEP), col("value"));
    return reward.unionByName(flat);
  }

  /** Per step, means over trees of their generated tokens, root's children and depth. */
  private static Dataset<Row> fromNodes(Dataset<Row> nodes) {
    Dataset<Row> perTree = nodes.groupBy(Cols.STEP, Cols.ROOT_ID).agg(
        sum(RolloutNode.GEN_TOKENS).cast("double").as("tokens"),
        sum(when(col(RolloutNode.DEPTH).equalTo(1), 1.0).otherwise(0.0)).as("children"),
        max(RolloutNode.DEPTH).cast("double").as("depth"));
    Dataset<Row> perStep = perTree.groupBy(Cols.STEP)
        .agg(avg("tokens").as("tokens"), avg("children").as("children"), avg("depth").as("depth"));
    return perStep.select(lit("rollouts.tokens_per_tree").as("name"), col(Cols.STEP), col("tokens").as("value"))
        .unionByName(perStep.select(lit("rollouts.children_per_root").as("name"), col(Cols.STEP), col("children").as("value")))
        .unionByName(perStep.select(lit("rollouts.depth_mean").as("name"), col(Cols.STEP), col("depth").as("value")));
  }
}
