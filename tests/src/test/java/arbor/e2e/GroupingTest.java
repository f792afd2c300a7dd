package arbor.e2e;

import static org.junit.jupiter.api.Assertions.*;

import arbor.conf.GroupSettings;
import arbor.pipelines.synthesis.Grouping;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** The grouping stage on small generated corpora whose neighbours are known. */
class GroupingTest {
  private static final StructType PAPERS = new StructType()
      .add("paper_id", DataTypes.StringType, false)
      .add("score", DataTypes.DoubleType, false)
      .add("embedding", DataTypes.createArrayType(DataTypes.FloatType, false), false);
  private static final StructType SEEDS = new StructType().add("paper_id", DataTypes.StringType, false);

  private static Dataset<Row> papers(List<Row> rows) {
    return TestEnv.spark().createDataFrame(rows, PAPERS);
  }

  private static Dataset<Row> seeds(String... ids) {
    return TestEnv.spark().createDataFrame(List.of(ids).stream().map(id -> RowFactory.create(id)).toList(), SEEDS);
  }

  private static float[] unit(double[] v) {
    double n = 0;
    for (double x : v) n += x * x;
    float[] out = new float[v.length];
    for (int i = 0; i < v.length; i++) out[i] = (float) (v[i] / Math.sqrt(n));
    return out;
  }

  /** Three clusters of 12 papers in 64 dimensions: about 0.8 inside a cluster, about 0 across. */
  private static List<Row> clusters() {
    List<Row> rows = new ArrayList<>();
    Random random = new Random(3);
    for (int c = 0; c < 3; c++) {
      double[] centre = new double[64];
      for (int i = 0; i < 64; i++) centre[i] = random.nextGaussian();
      for (int p = 0; p < 12; p++) {
        double[] v = new double[64];
        for (int i = 0; i < 64; i++) v[i] = centre[i] + 0.5 * random.nextGaussian();
        rows.add(RowFactory.create("c" + c + "-p" + p, (double) p, unit(v)));
      }
    }
    return rows;
  }

  private static Map<String, List<String>> groups(Dataset<Row> groups) {
    Map<String, List<String>> out = new HashMap<>();
    for (Row g : groups.collectAsList()) out.put(g.getAs("seed_paper_id"), g.getList(g.fieldIndex("paper_ids")));
    return out;
  }

  @Test
  void aGroupIsItsSeedAndUpToNineNeighboursFromItsOwnCluster() {
    Grouping grouping = new Grouping(new GroupSettings(10, 0.5, 0.02, 1.0, 3, 16), 7);
    Map<String, List<String>> groups = groups(grouping.transform(papers(clusters()), seeds("c0-p0", "c1-p5", "c2-p11", "c0-p3")));
    assertEquals(4, groups.size());
    groups.forEach((seed, members) -> {
      assertEquals(seed, members.get(0), "the seed comes first");
      assertEquals(10, members.size(), "11 cluster mates pass the threshold; 9 are taken: " + members);
      assertEquals(10, new HashSet<>(members).size());
      assertTrue(members.stream().allMatch(m -> m.startsWith(seed.substring(0, 3))), "only its own cluster: " + members);
    });
    Set<String> overlap = new HashSet<>(groups.get("c0-p0"));
    overlap.retainAll(groups.get("c0-p3"));
    assertTrue(overlap.size() > 2, "groups of one cluster overlap: " + overlap);
  }

  @Test
  void lshFindsTheSameGroupsAsTheExactMethodHereAndIsDeterministic() {
    Grouping grouping = new Grouping(new GroupSettings(10, 0.5, 0.02, 1.0, 3, 16), 7);
    Dataset<Row> papers = papers(clusters());
    Dataset<Row> seeds = seeds("c0-p0", "c1-p5", "c2-p11");
    Map<String, List<String>> lsh = groups(grouping.transform(papers, seeds));
    assertEquals(groups(grouping.exact(papers, seeds)), lsh);
    assertEquals(lsh, groups(new Grouping(new GroupSettings(10, 0.5, 0.02, 1.0, 3, 16), 7).transform(papers, seeds)));
  }

  @Test
  void nearTiesGoToTheHigherScoreAndTheThresholdHolds() {
    // seed s; a is a little nearer than b (cosine 0.898 vs 0.884: both in the band [0.88, 0.90)) but b scores
    // higher, so b ranks first; c (cosine 0.2) is below the threshold of 0.5.
    List<Row> rows = List.of(
        RowFactory.create("s", 0.0, unit(new double[] {1, 0, 0})),
        RowFactory.create("a", 0.0, unit(new double[] {0.898, Math.sqrt(1 - 0.898 * 0.898), 0})),
        RowFactory.create("b", 5.0, unit(new double[] {0.884, 0, Math.sqrt(1 - 0.884 * 0.884)})),
        RowFactory.create("c", 9.0, unit(new double[] {0.2, 0, Math.sqrt(1 - 0.04)})));
    Grouping all = new Grouping(new GroupSettings(10, 0.5, 0.02, 1.0, 1, 32), 7);
    assertEquals(List.of("s", "b", "a"), groups(all.exact(papers(rows), seeds("s"))).get("s"));
    Grouping two = new Grouping(new GroupSettings(2, 0.5, 0.02, 1.0, 1, 32), 7);
    assertEquals(List.of("s", "b"), groups(two.exact(papers(rows), seeds("s"))).get("s"));
    Grouping strict = new Grouping(new GroupSettings(10, 0.5, 0.001, 1.0, 1, 32), 7);
    assertEquals(List.of("s", "a", "b"), groups(strict.exact(papers(rows), seeds("s"))).get("s"), "no tie: nearest first");
  }

  @Test
  void aSeedWithoutNeighboursIsAGroupOfOne() {
    Grouping grouping = new Grouping(new GroupSettings(10, 0.99, 0.02, 1.0, 3, 16), 7);
    Map<String, List<String>> groups = groups(grouping.transform(papers(clusters()), seeds("c1-p1")));
    assertEquals(List.of("c1-p1"), groups.get("c1-p1"));
  }
}
