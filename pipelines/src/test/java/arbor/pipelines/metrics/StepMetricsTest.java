package arbor.pipelines.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.AdvantageSettings;
import arbor.conf.JudgeSettings;
import arbor.judge.JudgeSpec;
import arbor.pipelines.advantages.Advantages;
import arbor.pipelines.advantages.Trees;
import arbor.pipelines.judge.Judge;
import arbor.pipelines.judge.PapersForTests;
import arbor.pipelines.judge.References;
import arbor.pipelines.spark.TestSpark;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.tables.Metric;
import arbor.tables.RolloutNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** A step's metrics from hand-built trees judged by the embedded judge, written to Delta. */
class StepMetricsTest {
  static final SparkSession SPARK = TestSpark.spark();
  static final int NODE_ROOT_ID = RolloutNode.SCHEMA.fieldIndex(arbor.tables.Cols.ROOT_ID);
  static final int NODE_GEN_TOKENS = RolloutNode.SCHEMA.fieldIndex(RolloutNode.GEN_TOKENS);

  @Test
  void aStepsFiguresCoverRewardsTreeShapeChildrenStatusesAndFlatGroups() throws Exception {
    ObjectMapper json = new ObjectMapper();
    String evidence = PapersForTests.A.get(1);
    String copied = PapersForTests.copied(PapersForTests.NOISY_A, evidence);
    Trees t = new Trees("run", 3, 2);
    // q1: root 0 delegates paper A (answers with the evidence) and paper B (submits nothing);
    // root 1 answers alone with an unrelated paragraph.
    String r0 = t.root("q1", 0, "final", "djl", json.writeValueAsString(List.of(copied)));
    t.child(r0, 0, "final", "Question. Paper: " + PapersForTests.TITLE_A, json.writeValueAsString(List.of(copied)));
    t.child(r0, 1, "max_turns", "Question. Paper: " + PapersForTests.TITLE_B, null);
    t.root("q1", 1, "final", "djl", json.writeValueAsString(List.of(PapersForTests.B.get(0))));
    // q2: two roots that both submit nothing (a flat group), one that lost a child's sandbox.
    t.root("q2", 0, "max_turns", "djl", null);
    t.root("q2", 1, "max_turns", "djl", null);
    String lost = t.root("q2", 2, "final", "djl", "[]");
    t.child(lost, 0, "sandbox_lost", "Question. Paper: " + PapersForTests.TITLE_B, null);

    Dataset<Row> nodes = t.nodes(SPARK).cache();
    Dataset<Row> references = References.of(PapersForTests.queries(SPARK, List.of(new String[] {"q1", "How is the reward computed?", evidence},
        new String[] {"q2", "How are advantages computed?", PapersForTests.A.get(0)})), PapersForTests.groups(SPARK), PapersForTests.papers(SPARK)).cache();
    JudgeSettings judge = new JudgeSettings(JudgeSettings.Kind.EMBEDDED, 2, new JudgeSettings.EmbeddedJudgeSettings(0.5), null);
    Dataset<Row> rewards = new Judge(JudgeSpec.resolve(judge, Map.of())).transform(nodes, references).cache();
    Dataset<Row> roots = new Advantages(new AdvantageSettings(AdvantageSettings.Reduction.TREE, false, 1), 1).rootAdvantages(nodes, rewards);
    Warehouse wh = new Warehouse(SPARK, TestSpark.WORK.resolve("wh-" + System.nanoTime()).toString());
    wh.replaceStep(Table.METRICS, "run", 3, StepMetrics.of(nodes, rewards, references, roots));
    Map<String, Double> m = new HashMap<>();
    for (Row r : wh.read(Table.METRICS).collectAsList()) m.put(r.getAs(Metric.NAME), r.getAs(Metric.VALUE));

    assertEquals(5.0, m.get("judge.roots"));
    assertEquals(1.0, m.get("judge.infra_failures"));
    assertEquals(0.0, m.get("judge.errors"));
    // Scored rewards: q1 1.0 and 0.0, q2 0.0 and 0.0: mean 0.25.
    assertEquals(0.25, m.get("judge.reward_mean"), 1e-12);
    // 5 trees, 3 children: 0.6 per root; 3 of 5 roots never recurse; two trees of depth 1: mean 0.4, max 1.
    assertEquals(5.0, m.get("rollouts.trees"));
    assertEquals(0.6, m.get("rollouts.children_per_root"), 1e-12);
    assertEquals(0.6, m.get("rollouts.no_recursion_share"), 1e-12);
    assertEquals(0.4, m.get("rollouts.depth_mean"), 1e-12);
    assertEquals(1.0, m.get("rollouts.depth_max"));
    assertEquals(2.0, m.get("rollouts.turns_per_node"));
    assertEquals(1.6, m.get("rollouts.nodes_per_tree"), 1e-12);
    // 8 nodes: final 4, max_turns 3, sandbox_lost 1.
    assertEquals(0.5, m.get("rollouts.status_share.final"), 1e-12);
    assertEquals(0.375, m.get("rollouts.status_share.max_turns"), 1e-12);
    assertEquals(0.125, m.get("rollouts.status_share.sandbox_lost"), 1e-12);
    // 1 of 3 children submitted.
    assertEquals(1.0 / 3, m.get("rollouts.children_submitted_share"), 1e-12);
    // Root r0 delegated {A, B}, evidence is in {A}: F1 = 2 * 1 / (2 + 1) = 0.667; the lost
    // tree's child delegated {B} against {A}: 0. Mean over the two roots with children: 0.333.
    assertEquals(1.0 / 3, m.get("rollouts.child_paper_f1"), 1e-12);
    // The only child on an evidence paper (A) returned the evidence: span F1 1.
    assertEquals(1.0, m.get("rollouts.child_span_f1"), 1e-9);
    // Root latency is 1000 ms in these trees.
    assertEquals(1000.0, m.get("rollouts.latency_ms_mean"));
    assertEquals(1000.0, m.get("rollouts.latency_ms_max"));
    // Tokens: the trees' generated tokens summed per tree here, in plain Java, then averaged.
    Map<String, Long> perTree = new HashMap<>();
    long allTokens = 0;
    for (Row n : t.nodes) {
      // Hand-built rows carry no schema: root_id and gen_tokens by position.
      perTree.merge(n.getString(NODE_ROOT_ID), n.getLong(NODE_GEN_TOKENS), Long::sum);
      allTokens += n.getLong(NODE_GEN_TOKENS);
    }
    assertEquals((double) allTokens / 5, m.get("rollouts.tokens_per_tree"), 1e-12);
    assertEquals((double) allTokens / 8, m.get("rollouts.tokens_per_node"), 1e-12);
    assertTrue(perTree.values().stream().distinct().count() > 1, "the trees differ in tokens: " + perTree);
    // Span metrics of the four judged roots (the lost one has none): q1/s0 copied the evidence
    // (1, 1, 1); q1/s1 answered another paper's paragraph and q2's roots nothing (0, 0, 0).
    assertEquals(0.25, m.get("judge.span_precision"), 1e-9);
    assertEquals(0.25, m.get("judge.span_recall"), 1e-9);
    assertEquals(0.25, m.get("judge.span_f1"), 1e-9);
    // The embedded judge's precision and recall of the same roots on the rubric's 1-10 scale:
    // (10 + 1 + 1 + 1) / 4.
    assertEquals(3.25, m.get("judge.precision_mean"), 1e-9);
    assertEquals(3.25, m.get("judge.recall_mean"), 1e-9);
    // Groups: q1 (1.0 vs 0.0) and q2 (0.0, 0.0 scored, the lost root left out): half are flat.
    assertEquals(2.0, m.get("advantages.groups"));
    assertEquals(0.5, m.get("advantages.flat_group_share"), 1e-12);
    assertEquals(4.0, m.get("advantages.scored_roots"));
    assertEquals(1.0, m.get("advantages.left_out_roots"));
    assertFalse(m.containsKey("rollouts.status_share.cancelled"));
  }
}
