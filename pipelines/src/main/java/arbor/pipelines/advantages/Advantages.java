package arbor.pipelines.advantages;

import arbor.advantages.OneChild;
import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.raise_error;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.stddev_samp;
import static org.apache.spark.sql.functions.udf;
import static org.apache.spark.sql.functions.when;

import arbor.conf.AdvantageSettings;
import arbor.tables.Cols;
import arbor.tables.Reward;
import arbor.tables.RolloutNode;
import arbor.tables.Samples;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF3;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.types.DataTypes;

/**
 * The advantages stage (method section 8): rewards and rollout trees in, training samples out,
 * in DataFrame code throughout (nothing is collected to the driver).
 *
 * <ol>
 *   <li>Group advantage over the scored roots of each (run, step, query): reward minus the mean,
 *       over the sample standard deviation plus 1e-6; zero for a group whose rewards are all
 *       equal or that has one scored root. Roots without an {@code ok} reward (an infrastructure
 *       failure, a judge that failed) are left out of the statistics and yield no samples.
 *   <li>Every node takes its root's advantage (through {@code root_id}, at any depth).
 *   <li>Node weights level by level, one join per depth up to {@code maxDepth}: the root 1, a
 *       child its parent's weight over the parent's child count in the table ({@code tree}), or 1
 *       ({@code token_mean}); with {@code one_child}, only the drawn child of each parent is kept,
 *       at its parent's weight.
 *   <li>One sample per turn that has token ids.
 * </ol>
 */
public final class Advantages {
  /** Columns of {@link #rootAdvantages}. */
  public static final String REWARD = Reward.REWARD;
  public static final String ADVANTAGE = Samples.ADVANTAGE;
  public static final String GROUP_SIZE = "group_size";
  public static final String FLAT = "flat";
  /** Added to a group's standard deviation, so a near-flat group's advantages stay finite. */
  public static final double EPSILON = 1e-6;

  private final AdvantageSettings settings;
  private final int maxDepth;

  /** {@code maxDepth}: the deepest level to weigh ({@code rlm.max_depth}); a deeper node is an error. */
  public Advantages(AdvantageSettings settings, int maxDepth) {
    if (maxDepth < 0) throw new IllegalArgumentException("maxDepth must be >= 0, got " + maxDepth);
    this.settings = settings;
    this.maxDepth = maxDepth;
  }

  /**
   * One row per scored root: run_id, step, query_id, sample, root_id, reward, advantage,
   * group_size (scored roots of its group) and flat (whether the group's rewards are all equal).
   */
  public Dataset<Row> rootAdvantages(Dataset<Row> nodes, Dataset<Row> rewards) {
    Dataset<Row> roots = nodes.where(col(RolloutNode.PARENT_ID).isNull())
        .select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.QUERY_ID), col(Cols.SAMPLE), col(Cols.NODE_ID).as(Cols.ROOT_ID));
    Dataset<Row> scored = rewards.where(col(Reward.STATUS).equalTo(lit(Reward.OK)).and(col(Reward.REWARD).isNotNull()))
        .select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID).as(Cols.ROOT_ID), col(Reward.REWARD));
    var group = Window.partitionBy(Cols.RUN_ID, Cols.STEP, Cols.QUERY_ID);
    Column n = count(lit(1)).over(group);
    Column flat = max(col(REWARD)).over(group).equalTo(min(col(REWARD)).over(group));
    Column advantage = when(n.lt(2).or(flat), lit(0.0))
        .otherwise(col(REWARD).minus(avg(col(REWARD)).over(group))
            .divide(coalesce(stddev_samp(col(REWARD)).over(group), lit(0.0)).plus(lit(EPSILON))));
    return roots.join(scored, new String[] {Cols.RUN_ID, Cols.STEP, Cols.ROOT_ID})
        .select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.QUERY_ID), col(Cols.SAMPLE), col(Cols.ROOT_ID), col(REWARD),
            advantage.as(ADVANTAGE), n.as(GROUP_SIZE), flat.as(FLAT));
  }

  /** run_id, step, node_id and weight of every node that takes part (all of them, or the drawn ones). */
  public Dataset<Row> nodeWeights(Dataset<Row> nodes) {
    String[] key = {Cols.RUN_ID, Cols.STEP};
    Dataset<Row> tree = nodes.select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID), col(RolloutNode.PARENT_ID),
        col(RolloutNode.DEPTH), col(RolloutNode.CHILD_INDEX));
    Dataset<Row> children = tree.where(col(RolloutNode.PARENT_ID).isNotNull())
        .withColumn("k", count(lit(1)).over(Window.partitionBy(Cols.RUN_ID, Cols.STEP, RolloutNode.PARENT_ID)))
        .withColumn("rank", row_number().over(Window.partitionBy(Cols.RUN_ID, Cols.STEP, RolloutNode.PARENT_ID)
            .orderBy(RolloutNode.CHILD_INDEX, Cols.NODE_ID)).minus(1));
    if (settings.oneChild()) {
      children = children.where(col("rank").equalTo(pick().apply(lit(settings.seed()), col(RolloutNode.PARENT_ID), col("k"))));
    }
    Dataset<Row> level = tree.where(col(RolloutNode.PARENT_ID).isNull()).select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID),
        lit(1.0).as(Samples.WEIGHT));
    Dataset<Row> all = level;
    for (int d = 1; d <= maxDepth; d++) {
      Dataset<Row> parents = level.select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID).as(RolloutNode.PARENT_ID),
          col(Samples.WEIGHT).as("parent_weight"));
      Column w = switch (settings.reduction()) {
        case TOKEN_MEAN -> lit(1.0);
        case TREE -> settings.oneChild() ? col("parent_weight") : col("parent_weight").divide(col("k"));
      };
      level = children.where(col(RolloutNode.DEPTH).equalTo(d))
          .join(parents, new String[] {Cols.RUN_ID, Cols.STEP, RolloutNode.PARENT_ID})
          .select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID), w.as(Samples.WEIGHT));
      all = all.unionByName(level);
    }
    return all;
  }

  /** The {@code samples} rows of the step ({@link Samples#SCHEMA}). */
  public Dataset<Row> samples(Dataset<Row> nodes, Dataset<Row> turns, Dataset<Row> rewards) {
    String[] nodeKey = {Cols.RUN_ID, Cols.STEP, Cols.NODE_ID};
    Dataset<Row> roots = rootAdvantages(nodes, rewards).select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.ROOT_ID), col(ADVANTAGE));
    Column tooDeep = col(RolloutNode.DEPTH).gt(maxDepth);
    Dataset<Row> scoredNodes = nodes
        .select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID), col(Cols.QUERY_ID), col(Cols.SAMPLE), col(Cols.ROOT_ID),
            // A node deeper than the levels weighed would silently get no samples: stop instead.
            when(tooDeep, raise_error(concat(lit("advantages: node "), col(Cols.NODE_ID), lit(" is at depth "),
                col(RolloutNode.DEPTH).cast("string"), lit(", deeper than the " + maxDepth + " levels weighed (rlm.max_depth)"))))
                .otherwise(col(RolloutNode.DEPTH)).cast(DataTypes.IntegerType).as(Samples.DEPTH),
            col(RolloutNode.GEN_TOKENS).as(Samples.NODE_GEN_TOKENS))
        .join(roots, new String[] {Cols.RUN_ID, Cols.STEP, Cols.ROOT_ID})
        .join(nodeWeights(nodes), nodeKey);
    Column misaligned = size(col(Cols.LOGPROBS)).notEqual(size(col(Cols.RESPONSE_IDS)));
    return turns.where(col(Cols.PROMPT_IDS).isNotNull().and(col(Cols.RESPONSE_IDS).isNotNull()).and(col(Cols.LOGPROBS).isNotNull()))
        .select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID), col(Cols.TURN), col(Cols.PROMPT_IDS), col(Cols.RESPONSE_IDS),
            when(misaligned, raise_error(concat(lit("advantages: turn "), col(Cols.TURN).cast("string"), lit(" of node "),
                col(Cols.NODE_ID), lit(" has "), size(col(Cols.LOGPROBS)).cast("string"), lit(" log-probabilities for "),
                size(col(Cols.RESPONSE_IDS)).cast("string"), lit(" response ids"))))
                .otherwise(col(Cols.LOGPROBS)).as(Cols.LOGPROBS),
            col(Cols.POLICY_VERSION))
        .join(scoredNodes, nodeKey)
        .select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID), col(Cols.TURN), col(Cols.QUERY_ID), col(Cols.SAMPLE),
            col(Cols.ROOT_ID), col(Samples.DEPTH), col(ADVANTAGE), col(Samples.WEIGHT), col(Samples.NODE_GEN_TOKENS),
            col(Cols.PROMPT_IDS), col(Cols.RESPONSE_IDS), col(Cols.LOGPROBS), col(Cols.POLICY_VERSION));
  }

  private static UserDefinedFunction pick() {
    return udf((UDF3<Long, String, Long, Integer>) (seed, parent, k) -> OneChild.pick(seed, parent, Math.toIntExact(k)),
        DataTypes.IntegerType);
  }
}
