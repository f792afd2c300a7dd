package arbor.pipelines.sft;

import static org.apache.spark.sql.functions.*;

import arbor.tables.Cols;
import arbor.tables.Reward;
import arbor.tables.RolloutNode;
import arbor.tables.RolloutTurn;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Chooses which of a teacher's trees the student learns from: a tree is kept when none of its
 * turns, in any node, failed (a REPL error, a turn without a code block, a final answer that did
 * not take) and its root's span F1 is above zero. Training on a teacher's failed turns would
 * teach the failures; a tree with F1 zero answered nothing worth imitating.
 */
public final class TeacherTraces {
  /** Why a tree was dropped (null when kept); the first reason that applies, in this order. */
  public static final String REASON = "reason";

  public static final String REPL_ERROR = "a turn raised, timed out or lost its REPL";
  public static final String NO_CODE = "a turn had no code block";
  public static final String FAILED_FINAL = "a turn called FINAL/FINAL_VAR without ending its node";
  /** Followed by the root's status, e.g. " (status policy_error)": an endpoint that failed, or turns that ran out. */
  public static final String NO_ANSWER = "the root gave no final answer";
  public static final String ZERO_F1 = "the root's span F1 is 0";

  /**
   * One row per tree: run_id, step, root_id, query_id, reason (null = kept).
   *
   * @param nodes rollout_nodes rows of the teacher's run
   * @param turns rollout_turns rows of the same run
   * @param rewards rewards rows of the same run (their span_f1 is what counts)
   */
  public Dataset<Row> verdicts(Dataset<Row> nodes, Dataset<Row> turns, Dataset<Row> rewards) {
    Column lastTurnOfFinal = col("n." + RolloutNode.STATUS).equalTo("final")
        .and(col("t." + Cols.TURN).equalTo(col("n." + RolloutNode.TURNS).minus(1)));
    Column callsFinal = exists(col("t." + RolloutTurn.CODE), c -> c.contains("FINAL"));
    Column turnError = when(col("t." + RolloutTurn.REPL_ERROR), lit(1))
        .when(size(col("t." + RolloutTurn.CODE)).equalTo(0), lit(2))
        .when(callsFinal.and(not(lastTurnOfFinal)), lit(3));
    Dataset<Row> worstTurn = turns.as("t")
        .join(nodes.as("n"), keys("t", "n"))
        .groupBy(col("n." + Cols.RUN_ID).as(Cols.RUN_ID), col("n." + Cols.STEP).as(Cols.STEP),
            col("n." + Cols.ROOT_ID).as(Cols.ROOT_ID))
        .agg(min(turnError).as("turn_error"));
    Dataset<Row> roots = nodes.where(col(RolloutNode.DEPTH).equalTo(0))
        .select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID).as(Cols.ROOT_ID), col(Cols.QUERY_ID),
            col(RolloutNode.STATUS))
        .join(rewards.select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID).as(Cols.ROOT_ID), col(Reward.SPAN_F1)),
            new String[] {Cols.RUN_ID, Cols.STEP, Cols.ROOT_ID}, "left")
        .join(worstTurn, new String[] {Cols.RUN_ID, Cols.STEP, Cols.ROOT_ID}, "left");
    Column reason = when(col("turn_error").equalTo(1), lit(REPL_ERROR))
        .when(col("turn_error").equalTo(2), lit(NO_CODE))
        .when(col("turn_error").equalTo(3), lit(FAILED_FINAL))
        .when(col(RolloutNode.STATUS).notEqual("final"),
            concat(lit(NO_ANSWER + " (status "), col(RolloutNode.STATUS), lit(")")))
        .when(coalesce(col(Reward.SPAN_F1), lit(0.0)).leq(0.0), lit(ZERO_F1));
    return roots.select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.ROOT_ID), col(Cols.QUERY_ID), reason.as(REASON));
  }

  /**
   * The turns of the kept trees, every node's: run_id, step, node_id, turn, query_id, messages,
   * response_text.
   */
  public Dataset<Row> keptTurns(Dataset<Row> verdicts, Dataset<Row> nodes, Dataset<Row> turns) {
    Dataset<Row> keptNodes = nodes.join(verdicts.where(col(REASON).isNull()).select(Cols.RUN_ID, Cols.STEP, Cols.ROOT_ID),
        new String[] {Cols.RUN_ID, Cols.STEP, Cols.ROOT_ID}).select(Cols.RUN_ID, Cols.STEP, Cols.NODE_ID, Cols.QUERY_ID);
    return turns.join(keptNodes, new String[] {Cols.RUN_ID, Cols.STEP, Cols.NODE_ID})
        .select(col(Cols.RUN_ID), col(Cols.STEP), col(Cols.NODE_ID), col(Cols.TURN), col(Cols.QUERY_ID), col(RolloutTurn.MESSAGES),
            col(RolloutTurn.RESPONSE_TEXT));
  }

  private static Column keys(String a, String b) {
    return col(a + "." + Cols.RUN_ID).equalTo(col(b + "." + Cols.RUN_ID))
        .and(col(a + "." + Cols.STEP).equalTo(col(b + "." + Cols.STEP)))
        .and(col(a + "." + Cols.NODE_ID).equalTo(col(b + "." + Cols.NODE_ID)));
  }
}
