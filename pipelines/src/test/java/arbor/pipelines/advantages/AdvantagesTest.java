package arbor.pipelines.advantages;

import arbor.advantages.OneChild;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.sum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.AdvantageSettings;
import arbor.conf.AdvantageSettings.Reduction;
import arbor.pipelines.spark.TestSpark;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.tables.Cols;
import arbor.tables.Reward;
import arbor.tables.Samples;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** The advantages stage on local Spark over hand-built trees (method section 8's properties). */
class AdvantagesTest {
  static final SparkSession SPARK = TestSpark.spark();
  static final AdvantageSettings TREE = new AdvantageSettings(Reduction.TREE, false, 11);
  static final double[] REWARDS = {0.9, 0.2, 0.6, 0.6, 0.1, 0.8, 0.4, 0.5};
  static final int[] CHILDREN = {1, 5, 0, 3, 12, 2, 0, 4};

  static Row reward(String nodeId, String queryId, int sample, Double reward, String status) {
    return RowFactory.create("run", 1L, nodeId, queryId, sample, reward, null, null, null, "embedded", null, null, null, status,
        Reward.OK.equals(status) ? null : "what happened");
  }

  static Dataset<Row> rewards(List<Row> rows) {
    return SPARK.createDataFrame(rows, Reward.SCHEMA);
  }

  /** The method's eight roots, one query, depth-1 trees with the given children per root. */
  static Trees methodGroup(List<Row> rewards) {
    Trees t = new Trees("run", 1, 1);
    for (int g = 0; g < 8; g++) {
      String root = t.root("q1", g, "final", "djl", "[]");
      for (int c = 0; c < CHILDREN[g]; c++) t.child(root, c, "final", "child", "[]");
      rewards.add(reward(root, "q1", g, REWARDS[g], Reward.OK));
    }
    return t;
  }

  static Map<String, Double> sumBy(Dataset<Row> samples, String key, String value) {
    Map<String, Double> out = new HashMap<>();
    for (Row r : samples.groupBy(key).agg(sum(col(value))).collectAsList()) out.put(r.getString(0), r.getDouble(1));
    return out;
  }

  @Test
  void groupAdvantagesSumToZeroAndEveryNodeOfATreeTakesItsRootsAdvantage() {
    List<Row> rewards = new ArrayList<>();
    Trees t = methodGroup(rewards);
    Dataset<Row> samples = new Advantages(TREE, 1).samples(t.nodes(SPARK), t.turns(SPARK), rewards(rewards)).cache();
    // 8 roots + 27 children, one turn each.
    assertEquals(35, samples.count());
    double sum = 0;
    for (Row r : samples.where(col(Samples.DEPTH).equalTo(0)).collectAsList()) sum += r.<Double>getAs(Samples.ADVANTAGE);
    assertEquals(0, sum, 1e-9);
    // Root 4 (reward 0.1): A = (0.1 - 0.5125) / (0.274837614 + 1e-6) = -1.500881; its 12 children too.
    List<Row> tree4 = samples.where(col(Cols.ROOT_ID).equalTo("q1/s4")).collectAsList();
    assertEquals(13, tree4.size());
    for (Row r : tree4) assertEquals(-1.500880802, r.<Double>getAs(Samples.ADVANTAGE), 1e-8);
  }

  @Test
  void theBranchiestRootHolds14PercentOfTheWeightWithOneOverKAnd37PercentWithout() {
    List<Row> rewards = new ArrayList<>();
    Trees t = methodGroup(rewards);
    for (var c : List.of(new Object[] {Reduction.TREE, 2.0 / 14}, new Object[] {Reduction.TOKEN_MEAN, 13.0 / 35})) {
      Dataset<Row> samples = new Advantages(new AdvantageSettings((Reduction) c[0], false, 11), 1)
          .samples(t.nodes(SPARK), t.turns(SPARK), rewards(rewards));
      Map<String, Double> weight = sumBy(samples, Cols.ROOT_ID, Samples.WEIGHT);
      double total = weight.values().stream().mapToDouble(Double::doubleValue).sum();
      // tree: 6 trees with children weigh 2, two weigh 1: 14; the 12-child tree 2/14 = 14.3%.
      // token_mean: 35 nodes of weight 1; the 12-child tree 13/35 = 37.1%.
      assertEquals((double) c[1], weight.get("q1/s4") / total, 1e-12, c[0].toString());
    }
  }

  @Test
  void aFullTreeOfDepth4AndBranching6Has1555NodesOfTotalWeight5() {
    Trees t = new Trees("run", 1, 1);
    String a = t.root("q1", 0, "final", "djl", "[]");
    String b = t.root("q1", 1, "final", "djl", "[]");
    t.full(a, 4, 6);
    List<Row> rewards = List.of(reward(a, "q1", 0, 1.0, Reward.OK), reward(b, "q1", 1, 0.0, Reward.OK));
    Dataset<Row> samples = new Advantages(TREE, 4).samples(t.nodes(SPARK), t.turns(SPARK), rewards(rewards)).cache();
    Dataset<Row> big = samples.where(col(Cols.ROOT_ID).equalTo(a));
    // 1 + 6 + 36 + 216 + 1296 = 1555 nodes; each level sums to weight 1: 5 in all.
    assertEquals(1555, big.count());
    assertEquals(5.0, big.agg(sum(Samples.WEIGHT)).first().getDouble(0), 1e-9);
    // A leaf at depth 4 weighs 1/6^4; every node has the root's advantage (1 - 0.5) / (0.7071 + 1e-6).
    Row leaf = big.where(col(Samples.DEPTH).equalTo(4)).first();
    assertEquals(1.0 / 1296, leaf.<Double>getAs(Samples.WEIGHT), 1e-15);
    assertEquals(0.5 / (Math.sqrt(0.5) + 1e-6), leaf.<Double>getAs(Samples.ADVANTAGE), 1e-12);
  }

  @Test
  void treesOfDepth3WeighByTheChildrenEachParentReallyHas() {
    Trees t = new Trees("run", 1, 2);
    String r = t.root("q1", 0, "final", "djl", "[]");
    String a = t.child(r, 0, "final", "c", "[]");
    t.child(r, 1, "final", "c", "[]");
    String c = t.child(a, 0, "final", "c", "[]");
    t.child(a, 1, "final", "c", "[]");
    t.child(a, 2, "final", "c", "[]");
    String f = t.child(c, 0, "final", "c", "[]");
    String other = t.root("q1", 1, "final", "djl", "[]");
    List<Row> rewards = List.of(reward(r, "q1", 0, 0.8, Reward.OK), reward(other, "q1", 1, 0.2, Reward.OK));
    Dataset<Row> samples = new Advantages(TREE, 3).samples(t.nodes(SPARK), t.turns(SPARK), rewards(rewards));
    Map<String, Double> w = new HashMap<>();
    for (Row s : samples.collectAsList()) w.put(s.getString(2) + "#" + s.getInt(3), s.<Double>getAs(Samples.WEIGHT));
    // Two turns per node, each with the node's weight: root 1; r's children 1/2; a's children
    // (1/2)/3 = 1/6; f, the only child of c: 1/6.
    assertEquals(16, w.size());
    assertEquals(1.0, w.get(r + "#1"));
    assertEquals(0.5, w.get(a + "#0"));
    assertEquals(1.0 / 6, w.get(c + "#1"), 1e-15);
    assertEquals(1.0 / 6, w.get(f + "#0"), 1e-15);
  }

  @Test
  void allEqualRewardsGiveZeroAdvantageAndTheGroupIsMarkedFlat() {
    Trees t = new Trees("run", 1, 1);
    List<Row> rewards = new ArrayList<>();
    for (int g = 0; g < 4; g++) rewards.add(reward(t.root("q2", g, "final", "djl", "[]"), "q2", g, 0.5, Reward.OK));
    Dataset<Row> roots = new Advantages(TREE, 1).rootAdvantages(t.nodes(SPARK), rewards(rewards));
    for (Row r : roots.collectAsList()) {
      assertEquals(0.0, r.<Double>getAs(Advantages.ADVANTAGE));
      assertTrue(r.<Boolean>getAs(Advantages.FLAT));
    }
  }

  @Test
  void aLoneScoredRootGetsZeroAdvantage() {
    // Its sibling failed for the harness and is left out: one reward has no spread to normalise by.
    Trees t = new Trees("run", 1, 1);
    String lost = t.root("q4", 0, "final", "djl", "[]");
    String alone = t.root("q4", 1, "final", "djl", "[]");
    List<Row> rewards = List.of(reward(lost, "q4", 0, null, Reward.INFRA_FAILURE), reward(alone, "q4", 1, 0.7, Reward.OK));
    List<Row> roots = new Advantages(TREE, 1).rootAdvantages(t.nodes(SPARK), rewards(rewards)).collectAsList();
    assertEquals(1, roots.size());
    assertEquals(0.0, roots.getFirst().<Double>getAs(Advantages.ADVANTAGE));
    assertEquals(1L, roots.getFirst().<Long>getAs(Advantages.GROUP_SIZE));
  }

  @Test
  void aRootThatFailedForTheHarnessIsLeftOutOfTheStatisticsAndYieldsNoSamples() {
    Trees t = new Trees("run", 1, 1);
    String lost = t.root("q3", 0, "final", "djl", "[]");
    t.child(lost, 0, "sandbox_lost", "c", null);
    String judgeFailed = t.root("q3", 1, "final", "djl", "[]");
    String a = t.root("q3", 2, "final", "djl", "[]");
    String b = t.root("q3", 3, "final", "djl", "[]");
    String c = t.root("q3", 4, "final", "djl", "[]");
    List<Row> rewards = List.of(reward(lost, "q3", 0, null, Reward.INFRA_FAILURE),
        reward(judgeFailed, "q3", 1, null, Reward.JUDGE_ERROR),
        reward(a, "q3", 2, 1.0, Reward.OK), reward(b, "q3", 3, 0.0, Reward.OK), reward(c, "q3", 4, 0.5, Reward.OK));
    Dataset<Row> samples = new Advantages(TREE, 1).samples(t.nodes(SPARK), t.turns(SPARK), rewards(rewards));
    Map<String, Double> adv = new HashMap<>();
    for (Row r : samples.collectAsList()) adv.put(r.getString(2), r.<Double>getAs(Samples.ADVANTAGE));
    // Only a, b, c: rewards 1, 0, 0.5, mean 0.5, sample std 0.5 (not skewed by a zero for the
    // failed roots): A = +-0.5 / 0.500001.
    assertEquals(3, adv.size());
    assertEquals(0.999998000004, adv.get(a), 1e-12);
    assertEquals(-0.999998000004, adv.get(b), 1e-12);
    assertEquals(0.0, adv.get(c), 1e-12);
  }

  @Test
  void oneChildKeepsOneDrawnChildPerParentAtItsParentsWeight() {
    List<Row> rewards = new ArrayList<>();
    Trees t = methodGroup(rewards);
    AdvantageSettings one = new AdvantageSettings(Reduction.TREE, true, 11);
    Dataset<Row> samples = new Advantages(one, 1).samples(t.nodes(SPARK), t.turns(SPARK), rewards(rewards)).cache();
    // 8 roots and one child for each of the 6 roots that have children, all at weight 1.
    assertEquals(14, samples.count());
    assertEquals(14.0, samples.agg(sum(Samples.WEIGHT)).first().getDouble(0), 1e-12);
    // The kept child is the one OneChild draws: the same under the same seed.
    Row kept = samples.where(col(Cols.ROOT_ID).equalTo("q1/s4").and(col(Samples.DEPTH).equalTo(1))).first();
    assertEquals("q1/s4." + OneChild.pick(11, "q1/s4", 12), kept.getString(2));
    assertEquals(kept.getString(2), new Advantages(one, 1).samples(t.nodes(SPARK), t.turns(SPARK), rewards(rewards))
        .where(col(Cols.ROOT_ID).equalTo("q1/s4").and(col(Samples.DEPTH).equalTo(1))).first().getString(2));
  }

  @Test
  void samplesCarryTheTurnsTokensAndTheNodesGeneratedTokens() {
    Trees t = new Trees("run", 1, 3);
    String r = t.root("q1", 0, "final", "djl", "[]");
    String o = t.root("q1", 1, "final", "djl", "[]");
    List<Row> rewards = List.of(reward(r, "q1", 0, 1.0, Reward.OK), reward(o, "q1", 1, 0.0, Reward.OK));
    List<Row> samples = new Advantages(TREE, 1).samples(t.nodes(SPARK), t.turns(SPARK), rewards(rewards))
        .where(col(Cols.NODE_ID).equalTo(r)).orderBy(Cols.TURN).collectAsList();
    assertEquals(3, samples.size());
    long tokens = 0;
    for (Row s : samples) {
      assertEquals(s.getList(s.fieldIndex(Cols.RESPONSE_IDS)).size(), s.getList(s.fieldIndex(Cols.LOGPROBS)).size());
      tokens += s.getList(s.fieldIndex(Cols.RESPONSE_IDS)).size();
    }
    for (Row s : samples) assertEquals(tokens, s.<Long>getAs(Samples.NODE_GEN_TOKENS));
    assertEquals(List.of(1, 2, 5), samples.get(2).getList(samples.get(2).fieldIndex(Cols.PROMPT_IDS)));
  }

  @Test
  void aNodeDeeperThanTheLevelsWeighedStopsTheStageWithItsName() {
    Trees t = new Trees("run", 1, 1);
    String r = t.root("q1", 0, "final", "djl", "[]");
    t.child(t.child(r, 0, "final", "c", "[]"), 0, "final", "c", "[]");
    List<Row> rewards = List.of(reward(r, "q1", 0, 1.0, Reward.OK));
    Exception e = assertThrows(Exception.class,
        () -> new Advantages(TREE, 1).samples(t.nodes(SPARK), t.turns(SPARK), rewards(rewards)).collectAsList());
    assertTrue(String.valueOf(e.getMessage()).contains("node q1/s0.0.0 is at depth 2, deeper than the 1 levels weighed"), e.getMessage());
  }

  @Test
  void rewritingAStepLeavesTheSameRows() {
    List<Row> rewards = new ArrayList<>();
    Trees t = methodGroup(rewards);
    Warehouse wh = new Warehouse(SPARK, TestSpark.WORK.resolve("wh-" + System.nanoTime()).toString());
    for (int i = 0; i < 2; i++) {
      wh.replaceStep(Table.SAMPLES, "run", 1, new Advantages(TREE, 1).samples(t.nodes(SPARK), t.turns(SPARK), rewards(rewards)));
    }
    Dataset<Row> written = wh.read(Table.SAMPLES);
    assertEquals(35, written.count());
    assertEquals(35, written.select(Cols.NODE_ID, Cols.TURN).distinct().count());
    assertEquals(Samples.SCHEMA.fieldNames().length, written.schema().fieldNames().length);
  }
}
