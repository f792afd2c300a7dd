package arbor.tables;

import static arbor.tables.Cols.*;

import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code eval}: one row per evaluated tree: a policy (a checkpoint, {@code scripted}, an endpoint
 * model) on one query of the validation or test split, run in the training harness. Key: run_id,
 * step, policy, split, query_id, sample. {@code step} is the training step of the checkpoint
 * evaluated (0 for a policy that is not a checkpoint of the run).
 */
public final class Eval {
  private Eval() {}

  public static final String POLICY = RolloutNode.POLICY;
  /** {@code validation} or {@code test}. */
  public static final String SPLIT = "split";
  /** The query's tier label ({@code singleton}, {@code focused}, {@code mid-range}, {@code wide-net}). */
  public static final String TIER = "tier";
  /** The judge's score of the root's answer. */
  public static final String REWARD = Reward.REWARD;
  public static final String SPAN_F1 = Reward.SPAN_F1;
  /** Wall time of the whole tree. */
  public static final String LATENCY_MS = RolloutNode.LATENCY_MS;
  /** Tokens generated over every node of the tree. */
  public static final String GEN_TOKENS = RolloutNode.GEN_TOKENS;
  /** The root's direct children. */
  public static final String CHILDREN = "children";
  /** Nodes in the tree, root included. */
  public static final String NODES = "nodes";
  /** The deepest node's depth (0: the root alone). */
  public static final String DEPTH = RolloutNode.DEPTH;
  /** The root's status (RolloutNode' values) or the judge's failure. */
  public static final String STATUS = RolloutNode.STATUS;
  public static final String AT = "at";

  public static final StructType SCHEMA = new StructType()
      .add(RUN_ID, DataTypes.StringType, false)
      .add(STEP, DataTypes.LongType, false)
      .add(POLICY, DataTypes.StringType, false)
      .add(SPLIT, DataTypes.StringType, false)
      .add(QUERY_ID, DataTypes.StringType, false)
      .add(SAMPLE, DataTypes.IntegerType, false)
      .add(TIER, DataTypes.StringType, false)
      .add(REWARD, DataTypes.DoubleType, true)
      .add(SPAN_F1, DataTypes.DoubleType, true)
      .add(LATENCY_MS, DataTypes.LongType, false)
      .add(GEN_TOKENS, DataTypes.LongType, false)
      .add(CHILDREN, DataTypes.IntegerType, false)
      .add(NODES, DataTypes.IntegerType, false)
      .add(DEPTH, DataTypes.IntegerType, false)
      .add(STATUS, DataTypes.StringType, false)
      .add(AT, DataTypes.TimestampType, false);
}
