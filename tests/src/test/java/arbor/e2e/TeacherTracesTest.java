package arbor.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import arbor.pipelines.sft.TeacherTraces;
import arbor.tables.Reward;
import arbor.tables.RolloutNode;
import arbor.tables.RolloutTurn;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;

class TeacherTracesTest {
  private final List<Row> nodes = new ArrayList<>();
  private final List<Row> turns = new ArrayList<>();
  private final List<Row> rewards = new ArrayList<>();

  /** A node with {@code codes.length} turns; turn i ran codes[i] (empty = no code block). */
  private void node(String tree, String path, String status, boolean replErrorInTurn0, String... codes) {
    String id = tree + ":" + path;
    int depth = path.equals("root") ? 0 : 1;
    nodes.add(RowFactory.create("run", 0L, id, "q-" + tree, 0, depth == 0 ? null : tree + ":root", tree + ":root",
        depth, depth == 0 ? -1 : 0, 0, "prompt", status.equals("final") ? "[\"span\"]" : null, status, null,
        codes.length, 10L, 5L, "scripted", 0L));
    for (int i = 0; i < codes.length; i++) {
      List<String> code = codes[i].isEmpty() ? List.of() : List.of(codes[i]);
      turns.add(RowFactory.create("run", 0L, id, i, "[]", null, null, null, "text", scala(code), "obs",
          i == 0 && replErrorInTurn0, "text", false, 1.0, 1.0, 0, 7L, 0L, 1L, 1L));
    }
  }

  private void reward(String tree, double spanF1) {
    rewards.add(RowFactory.create("run", 0L, tree + ":root", "q-" + tree, 0, 0.5, 5.0, 5.0, "r", "embedded",
        spanF1, spanF1, spanF1, Reward.OK, null));
  }

  private static scala.collection.immutable.Seq<String> scala(List<String> l) {
    return scala.jdk.javaapi.CollectionConverters.asScala(l).toList();
  }

  @Test
  void aTreeIsKeptOnlyWhenNoTurnFailedAndItsRootFoundSomething() {
    node("good", "root", "final", false, "search()", "rlm_query_batched()", "FINAL_VAR('evidence')");
    node("good", "root.0", "final", false, "search()", "FINAL_VAR('evidence')");
    reward("good", 0.4);
    node("raised", "root", "final", false, "x", "FINAL_VAR('evidence')");
    node("raised", "root.0", "max_turns", true, "1/0", "y");
    reward("raised", 0.4);
    node("nocode", "root", "final", false, "", "FINAL_VAR('evidence')");
    reward("nocode", 0.4);
    node("badfinal", "root", "final", false, "FINAL_VAR('missing')", "FINAL_VAR('evidence')");
    reward("badfinal", 0.4);
    node("nothing", "root", "final", false, "search()", "FINAL_VAR('evidence')");
    reward("nothing", 0.0);
    node("unfinished", "root", "max_turns", false, "search()", "search()");
    reward("unfinished", 0.0);

    var spark = TestEnv.spark();
    Dataset<Row> n = spark.createDataFrame(nodes, RolloutNode.SCHEMA);
    Dataset<Row> t = spark.createDataFrame(turns, RolloutTurn.SCHEMA);
    Dataset<Row> r = spark.createDataFrame(rewards, Reward.SCHEMA);
    TeacherTraces traces = new TeacherTraces();
    Dataset<Row> verdicts = traces.verdicts(n, t, r);

    Map<String, String> reasons = new TreeMap<>();
    for (Row row : verdicts.collectAsList()) {
      reasons.put(row.getAs("root_id"), row.getAs(TeacherTraces.REASON) == null ? "kept" : row.getAs(TeacherTraces.REASON));
    }
    assertEquals(Map.of("good:root", "kept", "raised:root", TeacherTraces.REPL_ERROR, "nocode:root", TeacherTraces.NO_CODE,
        "badfinal:root", TeacherTraces.FAILED_FINAL, "nothing:root", TeacherTraces.ZERO_F1,
        "unfinished:root", TeacherTraces.NO_ANSWER + " (status max_turns)"), reasons);
    // The kept tree's turns, its child's included: 3 + 2.
    assertEquals(5, traces.keptTurns(verdicts, n, t).count());
  }
}
