package arbor.tables;

import static arbor.tables.Cols.*;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A row of {@code rollout_nodes}: one per RLM node of every rollout tree of a step, roots and
 * children alike. Key: run_id, step, node_id. A root has {@code parent_id} null, depth 0 and
 * child_index -1; its {@code latency_ms} is the tree's wall time.
 *
 * @param finalAnswer the answer as JSON, null without one
 * @param status a {@code NodeStatus} key, or the harness's {@code infra_error}
 * @param error why the node ended without an answer, in words (null when it gave one)
 * @param turns how many turns it took
 */
public record RolloutNode(String runId, long step, String nodeId, String queryId, int sample, String parentId,
    String rootId, int depth, int childIndex, int numChildren, String prompt, String finalAnswer, String status,
    String error, int turns, long genTokens, long latencyMs, String policy, long policyVersion) {

  public static final String PARENT_ID = "parent_id";
  public static final String DEPTH = "depth";
  /** Position of the node's prompt in its parent's rlm_query_batched call (or rlm_query call order). */
  public static final String CHILD_INDEX = "child_index";
  /** Children the node really spawned (those that got a node). */
  public static final String NUM_CHILDREN = "num_children";
  public static final String PROMPT = "prompt";
  /** The final answer as JSON (a list of strings for evidence tasks), null without one. */
  public static final String FINAL_ANSWER = "final_answer";
  /** {@code NodeStatus.key()}: final, max_turns, sandbox_error, sandbox_lost, policy_error, cancelled, budget. */
  public static final String STATUS = "status";
  /** What went wrong, in words, when the status is not final (null otherwise). */
  public static final String ERROR = "error";
  public static final String TURNS = "turns";
  public static final String GEN_TOKENS = "gen_tokens";
  public static final String LATENCY_MS = "latency_ms";
  /** The policy that wrote the node: djl, scripted, replay, openai, anthropic. */
  public static final String POLICY = "policy";

  public static final StructType SCHEMA = new StructType()
      .add(RUN_ID, DataTypes.StringType, false)
      .add(STEP, DataTypes.LongType, false)
      .add(NODE_ID, DataTypes.StringType, false)
      .add(QUERY_ID, DataTypes.StringType, false)
      .add(SAMPLE, DataTypes.IntegerType, false)
      .add(PARENT_ID, DataTypes.StringType, true)
      .add(ROOT_ID, DataTypes.StringType, false)
      .add(DEPTH, DataTypes.IntegerType, false)
      .add(CHILD_INDEX, DataTypes.IntegerType, false)
      .add(NUM_CHILDREN, DataTypes.IntegerType, false)
      .add(PROMPT, DataTypes.StringType, false)
      .add(FINAL_ANSWER, DataTypes.StringType, true)
      .add(STATUS, DataTypes.StringType, false)
      .add(ERROR, DataTypes.StringType, true)
      .add(TURNS, DataTypes.IntegerType, false)
      .add(GEN_TOKENS, DataTypes.LongType, false)
      .add(LATENCY_MS, DataTypes.LongType, false)
      .add(POLICY, DataTypes.StringType, false)
      .add(POLICY_VERSION, DataTypes.LongType, false);

  public Row toRow() {
    return RowFactory.create(runId, step, nodeId, queryId, sample, parentId, rootId, depth, childIndex, numChildren,
        prompt, finalAnswer, status, error, turns, genTokens, latencyMs, policy, policyVersion);
  }

  /** A node read from a row with this table's columns (by name, so in any order). */
  public static RolloutNode of(Row row) {
    return new RolloutNode(row.getAs(RUN_ID), row.<Long>getAs(STEP), row.getAs(NODE_ID), row.getAs(QUERY_ID),
        row.<Integer>getAs(SAMPLE), row.getAs(PARENT_ID), row.getAs(ROOT_ID), row.<Integer>getAs(DEPTH),
        row.<Integer>getAs(CHILD_INDEX), row.<Integer>getAs(NUM_CHILDREN), row.getAs(PROMPT), row.getAs(FINAL_ANSWER),
        row.getAs(STATUS), row.getAs(ERROR), row.<Integer>getAs(TURNS), row.<Long>getAs(GEN_TOKENS),
        row.<Long>getAs(LATENCY_MS), row.getAs(POLICY), row.<Long>getAs(POLICY_VERSION));
  }
}
