package arbor.tables;

import static arbor.tables.Cols.*;

import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code rollout_turns}: one row per turn of every node. Key: run_id, step, node_id, turn.
 * Token ids and log-probabilities are null for policies that have none (endpoints, scripted);
 * {@code messages} always holds the conversation, so a teacher's turns can be rendered in the
 * student's chat template for SFT.
 */
public final class RolloutTurns {
  private RolloutTurns() {}

  /** The conversation the policy was given, as a JSON list of {role, content}. */
  public static final String MESSAGES = "messages";
  public static final String RESPONSE_TEXT = "response_text";
  /** The code blocks that ran, in order. */
  public static final String CODE = "code";
  public static final String OBSERVATION = "observation";
  public static final String REPL_ERROR = "repl_error";
  /** stop (the stop token), length (max_new_tokens), cancelled, or text (a policy without tokens). */
  public static final String FINISH_REASON = "finish_reason";
  /** Whether max_new_tokens (or the tree's remaining token budget) cut the response. */
  public static final String TRUNCATED = "truncated";
  public static final String TEMPERATURE = "temperature";
  public static final String TOP_P = "top_p";
  public static final String TOP_K = "top_k";
  /** The sampling seed of this turn, derived from (run, step, query, sample, node path, turn). */
  public static final String SEED = "seed";
  public static final String GEN_MS = "gen_ms";
  public static final String EXEC_MS = "exec_ms";

  public static final StructType SCHEMA = new StructType()
      .add(RUN_ID, DataTypes.StringType, false)
      .add(STEP, DataTypes.LongType, false)
      .add(NODE_ID, DataTypes.StringType, false)
      .add(TURN, DataTypes.IntegerType, false)
      .add(MESSAGES, DataTypes.StringType, false)
      .add(PROMPT_IDS, INTS, true)
      .add(RESPONSE_IDS, INTS, true)
      .add(LOGPROBS, FLOATS, true)
      .add(RESPONSE_TEXT, DataTypes.StringType, false)
      .add(CODE, STRINGS, false)
      .add(OBSERVATION, DataTypes.StringType, true)
      .add(REPL_ERROR, DataTypes.BooleanType, false)
      .add(FINISH_REASON, DataTypes.StringType, false)
      .add(TRUNCATED, DataTypes.BooleanType, false)
      .add(TEMPERATURE, DataTypes.DoubleType, false)
      .add(TOP_P, DataTypes.DoubleType, false)
      .add(TOP_K, DataTypes.IntegerType, false)
      .add(SEED, DataTypes.LongType, false)
      .add(POLICY_VERSION, DataTypes.LongType, false)
      .add(GEN_MS, DataTypes.LongType, false)
      .add(EXEC_MS, DataTypes.LongType, false);
}
