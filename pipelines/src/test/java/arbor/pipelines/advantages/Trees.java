package arbor.pipelines.advantages;

import arbor.tables.RolloutNode;
import arbor.tables.RolloutTurn;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;

/**
 * Hand-built rollout trees as {@code rollout_nodes} and {@code rollout_turns} rows: ids follow
 * the path ({@code q1/s0}, {@code q1/s0.2}, {@code q1/s0.2.0}), every node has {@code turnsPerNode}
 * turns with token ids and one log-probability per response id.
 */
public final class Trees {
  public final List<Row> nodes = new ArrayList<>();
  public final List<Row> turns = new ArrayList<>();
  private final String runId;
  private final long step;
  private final int turnsPerNode;

  public Trees(String runId, long step, int turnsPerNode) {
    this.runId = runId;
    this.step = step;
    this.turnsPerNode = turnsPerNode;
  }

  /** Adds a root and returns its id. */
  public String root(String queryId, int sample, String status, String policy, String finalAnswer) {
    String id = queryId + "/s" + sample;
    add(id, queryId, sample, null, id, 0, -1, status, policy, finalAnswer, "root prompt");
    return id;
  }

  /** Adds a child of {@code parentId} (its {@code index}-th) and returns its id. */
  public String child(String parentId, int index, String status, String prompt, String finalAnswer) {
    Row parent = nodes.stream().filter(r -> r.getString(2).equals(parentId)).findFirst().orElseThrow();
    String id = parentId + "." + index;
    add(id, parent.getString(3), parent.getInt(4), parentId, parent.getString(6), parent.getInt(7) + 1, index, status,
        parent.getString(17), finalAnswer, prompt);
    return id;
  }

  /** Adds {@code k} children to {@code parentId}, and recursively below them, down to {@code depth} more levels. */
  public void full(String parentId, int depth, int k) {
    if (depth == 0) return;
    for (int i = 0; i < k; i++) full(child(parentId, i, "final", "child prompt", "[]"), depth - 1, k);
  }

  private void add(String id, String queryId, int sample, String parentId, String rootId, int depth, int childIndex,
      String status, String policy, String finalAnswer, String prompt) {
    long genTokens = 0;
    for (int t = 0; t < turnsPerNode; t++) {
      int n = 2 + (id.length() + t) % 3;
      List<Integer> response = new ArrayList<>();
      List<Float> logprobs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        response.add(100 + i);
        logprobs.add(-0.5f - i);
      }
      genTokens += n;
      turns.add(RowFactory.create(runId, step, id, t, "[]", seq(List.of(1, 2, 3 + t)), seq(response), seq(logprobs), "text",
          seq(List.<String>of()), null, false, "stop", false, 1.0, 1.0, 0, 7L + t, 3L, 1L, 1L));
    }
    nodes.add(RowFactory.create(runId, step, id, queryId, sample, parentId, rootId, depth, childIndex, 0, prompt,
        finalAnswer, status, null, turnsPerNode, genTokens, 1000L + depth, policy, 3L));
  }

  public Dataset<Row> nodes(SparkSession spark) {
    return spark.createDataFrame(withChildCounts(), RolloutNode.SCHEMA);
  }

  public Dataset<Row> turns(SparkSession spark) {
    return spark.createDataFrame(turns, RolloutTurn.SCHEMA);
  }

  /** num_children as the rollouts stage writes it: the node's children in the table. */
  private List<Row> withChildCounts() {
    java.util.Map<String, Integer> k = new java.util.HashMap<>();
    for (Row r : nodes) if (r.get(5) != null) k.merge(r.getString(5), 1, Integer::sum);
    List<Row> out = new ArrayList<>();
    for (Row r : nodes) {
      Object[] v = new Object[r.size()];
      for (int i = 0; i < v.length; i++) v[i] = r.get(i);
      v[9] = k.getOrDefault(r.getString(2), 0);
      out.add(RowFactory.create(v));
    }
    return out;
  }

  private static <T> scala.collection.immutable.Seq<T> seq(List<T> list) {
    return scala.jdk.javaapi.CollectionConverters.asScala(list).toSeq();
  }
}
