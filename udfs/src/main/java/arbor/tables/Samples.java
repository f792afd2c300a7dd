package arbor.tables;

import static arbor.tables.Cols.*;

import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code samples}: one training sample per turn of every node of every tree that has an
 * advantage. Key: run_id, step, node_id, turn. The prompt is exactly the tokens the policy was
 * conditioned on, the response exactly what it generated, with the behaviour log-probabilities;
 * every turn of a node carries the node's advantage (its root's) and weight (1/k down the tree).
 */
public final class Samples {
  private Samples() {}

  public static final String ADVANTAGE = "advantage";
  public static final String WEIGHT = "weight";
  /** The node's generated tokens over all its turns: the 1/|y| of the per-node mean. */
  public static final String NODE_GEN_TOKENS = "node_gen_tokens";
  public static final String DEPTH = RolloutNode.DEPTH;

  public static final StructType SCHEMA = new StructType()
      .add(RUN_ID, DataTypes.StringType, false)
      .add(STEP, DataTypes.LongType, false)
      .add(NODE_ID, DataTypes.StringType, false)
      .add(TURN, DataTypes.IntegerType, false)
      .add(QUERY_ID, DataTypes.StringType, false)
      .add(SAMPLE, DataTypes.IntegerType, false)
      .add(ROOT_ID, DataTypes.StringType, false)
      .add(DEPTH, DataTypes.IntegerType, false)
      .add(ADVANTAGE, DataTypes.DoubleType, false)
      .add(WEIGHT, DataTypes.DoubleType, false)
      .add(NODE_GEN_TOKENS, DataTypes.LongType, false)
      .add(PROMPT_IDS, INTS, false)
      .add(RESPONSE_IDS, INTS, false)
      .add(LOGPROBS, FLOATS, false)
      .add(POLICY_VERSION, DataTypes.LongType, false);
}
