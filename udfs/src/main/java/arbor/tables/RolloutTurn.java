package arbor.tables;

import static arbor.tables.Cols.*;

import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A row of {@code rollout_turns}: one per turn of every node. Key: run_id, step, node_id, turn.
 * Token ids and log-probabilities are null for policies that have none (endpoints, scripted);
 * {@code messages} always holds the conversation, so a teacher's turns can be rendered in the
 * student's chat template for SFT.
 *
 * @param messages the conversation the policy was given, as a JSON list of {role, content}
 * @param code the code blocks that ran, in order
 * @param seed the turn's sampling seed
 */
public record RolloutTurn(String runId, long step, String nodeId, int turn, String messages, List<Integer> promptIds,
    List<Integer> responseIds, List<Float> logprobs, String responseText, List<String> code, String observation,
    boolean replError, String finishReason, boolean truncated, double temperature, double topP, int topK, long seed,
    long policyVersion, long genMs, long execMs) {

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

  public Row toRow() {
    return RowFactory.create(runId, step, nodeId, turn, messages, seqOrNull(promptIds), seqOrNull(responseIds),
        seqOrNull(logprobs), responseText, seq(code), observation, replError, finishReason, truncated, temperature,
        topP, topK, seed, policyVersion, genMs, execMs);
  }

  /** A turn read from a row with this table's columns (by name, so in any order). */
  public static RolloutTurn of(Row row) {
    return new RolloutTurn(row.getAs(RUN_ID), row.<Long>getAs(STEP), row.getAs(NODE_ID), row.<Integer>getAs(TURN),
        row.getAs(MESSAGES), listOrNull(row, PROMPT_IDS), listOrNull(row, RESPONSE_IDS), listOrNull(row, LOGPROBS),
        row.getAs(RESPONSE_TEXT), listOrNull(row, CODE), row.getAs(OBSERVATION), row.<Boolean>getAs(REPL_ERROR),
        row.getAs(FINISH_REASON), row.<Boolean>getAs(TRUNCATED), row.<Double>getAs(TEMPERATURE),
        row.<Double>getAs(TOP_P), row.<Integer>getAs(TOP_K), row.<Long>getAs(SEED), row.<Long>getAs(POLICY_VERSION),
        row.<Long>getAs(GEN_MS), row.<Long>getAs(EXEC_MS));
  }

  private static <T> scala.collection.immutable.Seq<T> seqOrNull(List<T> list) {
    return list == null ? null : seq(list);
  }

  private static <T> List<T> listOrNull(Row row, String column) {
    int i = row.fieldIndex(column);
    return row.isNullAt(i) ? null : row.getList(i);
  }
}
