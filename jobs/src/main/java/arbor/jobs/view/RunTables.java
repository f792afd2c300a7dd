package arbor.jobs.view;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.element_at;
import static org.apache.spark.sql.functions.first;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.size;

import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.synthesis.Queries;
import arbor.tables.Cols;
import arbor.tables.Reward;
import arbor.tables.RolloutNode;
import arbor.tables.RolloutTurn;
import arbor.tables.Samples;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Reads what the viewer shows from the warehouse, one step at a time, so that a run of
 * hundreds of steps never sits on the driver at once. Only the last message of each turn's
 * conversation leaves the executors (the conversation grows with every turn).
 */
final class RunTables {
  private static final StructType MESSAGE = new StructType()
      .add("role", DataTypes.StringType).add("content", DataTypes.StringType);

  private final Warehouse warehouse;
  private final String runId;

  RunTables(Warehouse warehouse, String runId) {
    this.warehouse = warehouse;
    this.runId = runId;
  }

  /** The run's steps that have rollout trees, in order. */
  List<Long> steps() {
    if (!warehouse.exists(Table.ROLLOUT_NODES)) return List.of();
    return warehouse.read(Table.ROLLOUT_NODES).where(col(Cols.RUN_ID).equalTo(runId)).select(Cols.STEP).distinct()
        .orderBy(Cols.STEP).collectAsList().stream().map(r -> r.getLong(0)).toList();
  }

  StepTrees step(long step, Map<String, StepTrees.Query> queries) {
    Column rows = col(Cols.RUN_ID).equalTo(runId).and(col(Cols.STEP).equalTo(step));
    List<RolloutNode> nodes = new ArrayList<>();
    for (Row r : warehouse.read(Table.ROLLOUT_NODES).where(rows).collectAsList()) {
      nodes.add(RolloutNode.of(r));
    }
    return new StepTrees(runId, step, nodes, turns(rows), verdicts(rows), advantages(rows), queries);
  }

  private List<StepTrees.Turn> turns(Column rows) {
    List<StepTrees.Turn> out = new ArrayList<>();
    if (!warehouse.exists(Table.ROLLOUT_TURNS)) return out;
    Column last = element_at(from_json(col(RolloutTurn.MESSAGES), DataTypes.createArrayType(MESSAGE)), -1);
    Dataset<Row> turns = warehouse.read(Table.ROLLOUT_TURNS).where(rows).select(col(Cols.NODE_ID), col(Cols.TURN),
        last.getField("role").as("last_role"), last.getField("content").as("last_message"),
        col(RolloutTurn.RESPONSE_TEXT), col(RolloutTurn.CODE), col(RolloutTurn.OBSERVATION),
        col(RolloutTurn.REPL_ERROR), col(RolloutTurn.FINISH_REASON), col(RolloutTurn.TRUNCATED),
        tokens(Cols.PROMPT_IDS).as("prompt_tokens"), tokens(Cols.RESPONSE_IDS).as("response_tokens"),
        col(RolloutTurn.GEN_MS), col(RolloutTurn.EXEC_MS), col(RolloutTurn.TEMPERATURE), col(RolloutTurn.SEED));
    for (Row r : turns.collectAsList()) {
      out.add(new StepTrees.Turn(r.getString(0), r.getInt(1), r.getString(2), r.getString(3), r.getString(4),
          r.getList(5), r.getString(6), r.getBoolean(7), r.getString(8), r.getBoolean(9),
          r.getInt(10), r.getInt(11), r.getLong(12), r.getLong(13), r.getDouble(14), r.getLong(15)));
    }
    return out;
  }

  /**
   * A turn's token count, -1 for a policy without tokens (an endpoint, the scripted expert):
   * under ANSI SQL, Spark's default, size() of a null array is null, not -1.
   */
  private static Column tokens(String ids) {
    return coalesce(size(col(ids)), lit(-1));
  }

  private Map<String, StepTrees.Verdict> verdicts(Column rows) {
    Map<String, StepTrees.Verdict> out = new HashMap<>();
    if (!warehouse.exists(Table.REWARDS)) return out;
    for (Row r : warehouse.read(Table.REWARDS).where(rows).collectAsList()) {
      Reward v = Reward.of(r);
      out.put(v.nodeId(), new StepTrees.Verdict(v.reward(), v.precision(), v.recall(), v.reasoning(), v.spanF1(),
          v.judge(), v.status(), v.error()));
    }
    return out;
  }

  /** Each root's advantage (every turn of a tree carries its root's); eval runs have none. */
  private Map<String, Double> advantages(Column rows) {
    Map<String, Double> out = new HashMap<>();
    if (!warehouse.exists(Table.SAMPLES)) return out;
    for (Row r : warehouse.read(Table.SAMPLES).where(rows).groupBy(Cols.ROOT_ID)
        .agg(first(Samples.ADVANTAGE)).collectAsList()) {
      out.put(r.getString(0), r.getDouble(1));
    }
    return out;
  }

  /** The queries of the run's trees, with their evidence (the table keeps retired queries too). */
  Map<String, StepTrees.Query> queries() {
    Map<String, StepTrees.Query> out = new HashMap<>();
    if (!warehouse.exists(Table.QUERIES) || !warehouse.exists(Table.ROLLOUT_NODES)) return out;
    Dataset<Row> used = warehouse.read(Table.ROLLOUT_NODES).where(col(Cols.RUN_ID).equalTo(runId))
        .select(Cols.QUERY_ID).distinct();
    for (Row r : warehouse.read(Table.QUERIES).join(used, Cols.QUERY_ID).collectAsList()) {
      List<StepTrees.Evidence> evidence = new ArrayList<>();
      List<Row> ev = r.isNullAt(r.fieldIndex(Queries.EVIDENCE)) ? List.of() : r.getList(r.fieldIndex(Queries.EVIDENCE));
      for (Row e : ev) evidence.add(new StepTrees.Evidence(e.getAs("paper_id"), e.getAs("text")));
      String id = r.getAs(Queries.QUERY_ID);
      out.put(id, new StepTrees.Query(id, r.getAs(Queries.QUESTION), r.getAs(Queries.TIER), r.getAs(Queries.GROUP_ID),
          evidence));
    }
    return out;
  }
}
