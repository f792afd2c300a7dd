package arbor.jobs.bench;

import static org.junit.jupiter.api.Assertions.*;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** PairedComparison on cases whose answers are worked out by hand. */
class PairedStatsTest {
  private static final PairedComparison STATS = new PairedComparison(10_000, 100_000, 7);

  /** Each query its own group: the old independent (query-level) bootstrap and test. */
  private static String[] ownGroups(int n) {
    return IntStream.range(0, n).mapToObj(i -> "q" + i).toArray(String[]::new);
  }

  @Test
  void threeSmallWinsAndFiveTiesAreNotADifferenceAtFivePercent() {
    // The case: 8 queries, A ahead by 0.1 on 3 of them, tied on 5. The tied queries move
    // no sign pattern, so there are 2^3 = 8 patterns of the three wins: sums +-0.3 (all the same
    // sign, 2 patterns) and +-0.1 (the other 6); only the 2 reach |0.3|, p = 2/8.
    double[] a = {0.6, 0.5, 0.4, 0.2, 0.2, 0.2, 0.2, 0.2};
    double[] b = {0.5, 0.4, 0.3, 0.2, 0.2, 0.2, 0.2, 0.2};
    var r = STATS.compare(ownGroups(8), a, b);
    assertEquals(0.25, r.p(), 1e-12);
    assertTrue(r.exact());
    assertEquals(8, r.patterns());
    assertEquals(3, r.signGroups());
    assertEquals(3, r.wins());
    assertEquals(5, r.ties());
    assertEquals(0, r.losses());
    assertEquals(8, r.queries());
    assertEquals(8, r.groups());
    assertEquals(0.3 / 8, r.meanDifference(), 1e-12);
    // Yet the percentile bootstrap over these 8 queries (what PairedBootstrap did) lies above 0:
    // a resample with none of the 3 wins has probability (5/8)^8 = 2.3% < 2.5%, so the 2.5% point
    // is a resample with one win. The interval alone would have claimed a difference.
    assertTrue(r.low() > 0, r.toString());
  }

  @Test
  void queriesOfOneGroupAreResampledAndFlippedTogether() {
    // 20 queries from 2 paper groups: 10 with A ahead by 0.3, 10 by 0.1. All 20 differences are
    // positive, but there are only two independent units.
    String[] group = new String[20];
    double[] a = new double[20];
    double[] b = new double[20];
    for (int i = 0; i < 20; i++) {
      group[i] = i < 10 ? "paper-1" : "paper-2";
      a[i] = i < 10 ? 0.5 : 0.3;
      b[i] = 0.2;
    }
    var clustered = STATS.compare(group, a, b);
    var independent = STATS.compare(ownGroups(20), a, b);
    assertEquals(0.2, clustered.meanDifference(), 1e-12);
    assertEquals(0.2, independent.meanDifference(), 1e-12);
    // Groups resampled: {1,1} -> 0.3, {1,2} -> 0.2, {2,2} -> 0.1, each end with probability 1/4.
    assertEquals(0.1, clustered.low(), 1e-12);
    assertEquals(0.3, clustered.high(), 1e-12);
    // Queries resampled: a mean of 20 draws of 0.1 or 0.3, standard error 0.1 / sqrt(20) = 0.022,
    // so the interval is about [0.156, 0.244] and excludes both 0.1 and 0.3.
    assertTrue(independent.low() > 0.13 && independent.high() < 0.27, independent.toString());
    assertTrue(clustered.high() - clustered.low() > 2 * (independent.high() - independent.low()));
    // Two groups, 4 sign patterns: +-(3 + 1) and +-(3 - 1); only the 2 of the first reach 4.
    assertEquals(0.5, clustered.p(), 1e-12);
    assertEquals(2, clustered.groups());
    assertEquals(20, clustered.wins());
    // Queries taken as independent, only the all-positive and all-negative of 2^20 patterns reach it.
    assertEquals(2.0 / (1 << 20), independent.p(), 1e-15);
  }

  @Test
  void noDifferenceAnywhereIsMeanZeroIntervalZeroAndPOne() {
    String[] group = {"g1", "g1", "g2", "g3"};
    double[] s = {0.0, 0.7, 0.25, 1.0};
    var r = STATS.compare(group, s, s.clone());
    assertEquals(0.0, r.meanDifference(), 0);
    assertEquals(0.0, r.low(), 0);
    assertEquals(0.0, r.high(), 0);
    assertEquals(1.0, r.p(), 0);
    assertTrue(r.exact());
    assertEquals(0, r.signGroups());
    assertEquals(4, r.ties());
    assertEquals(0, r.wins() + r.losses());
    assertEquals(3, r.groups());
  }

  @Test
  void theExactPMatchesTheSixteenPatternsByHand() {
    // Four groups with summed differences 0.1, 0.2, 0.3, -0.1 (the second group of two queries,
    // 0.05 + 0.15); observed sum 0.5. In tenths, signs applied to (1, 2, 3, -1):
    //   ++++  5 *    +++-  7 *    ++-+ -1      ++-- 1
    //   +-++  1      +-+-  3      +--+ -5 *    +--- -3
    //   -+++  3      -++- 5 *     -+-+ -3      -+-- -1
    //   --++ -1      --+-  1      ---+ -7 *    ---- -5 *
    // 6 of 16 have |sum| >= 5 (the two +-5 from the observed and its negation, +-7, and the two
    // other +-5), so p = 6/16 = 0.375. The +-5 of other patterns must count although 0.1, 0.2 ...
    // do not add up exactly in binary: ties are extreme.
    String[] group = {"g1", "g2", "g2", "g3", "g4"};
    double[] a = {0.6, 0.55, 0.65, 0.8, 0.1};
    double[] b = {0.5, 0.5, 0.5, 0.5, 0.2};
    var r = STATS.compare(group, a, b);
    assertEquals(0.375, r.p(), 1e-12);
    assertTrue(r.exact());
    assertEquals(16, r.patterns());
    assertEquals(0.5 / 5, r.meanDifference(), 1e-12);
    assertEquals(4, r.wins());
    assertEquals(1, r.losses());
    assertEquals(0, r.ties());
    assertEquals(4, r.groups());
    // The group statistic is the sum of its queries' differences, not their mean: with the mean
    // (0.1 for g2) the observed 0.4 would be reached by 8 of 16 sign patterns of (1, 1, 3, -1), p = 0.5.
  }

  @Test
  void manyGroupsAreSampledAndAgreeWithTheBinomial() {
    // 25 groups of one query: 17 with A ahead by 1, 8 behind by 1; observed sum 9. Under H0 the
    // sum is 2K - 25, K ~ Binomial(25, 1/2); |2K - 25| >= 9 when K <= 8 or K >= 17, probability
    // 2 * P(K <= 8) = 0.10775. 25 groups are over the limit of 20, so it is sampled: 100,001
    // patterns, standard error about 0.001.
    double[] a = new double[25];
    double[] b = new double[25];
    for (int i = 0; i < 25; i++) a[i] = i < 17 ? 1 : -1;
    var r = STATS.compare(ownGroups(25), a, b);
    assertFalse(r.exact());
    assertEquals(100_001, r.patterns());
    assertEquals(25, r.signGroups());
    assertEquals(0.10775, r.p(), 0.005);
    // Exactly at the limit it enumerates: 20 groups all +1, 2 of 2^20 patterns.
    double[] twenty = new double[20];
    java.util.Arrays.fill(twenty, 1);
    var edge = STATS.compare(ownGroups(20), twenty, new double[20]);
    assertTrue(edge.exact());
    assertEquals(1L << 20, edge.patterns());
  }

  @Test
  void theSameSeedGivesTheSameResult() {
    String[] group = {"g1", "g1", "g2", "g3", "g3", "g4"};
    double[] a = {0.3, 0.1, 0.8, 0.4, 0.0, 0.9};
    double[] b = {0.2, 0.4, 0.1, 0.4, 0.3, 0.5};
    var first = STATS.compare(group, a, b);
    assertEquals(first, new PairedComparison(10_000, 100_000, 7).compare(group, a, b));
    assertTrue(first.low() < first.meanDifference() && first.meanDifference() < first.high(), first.toString());
    // The sampled test too.
    double[] x = IntStream.range(0, 30).mapToDouble(i -> (i * 37 % 11) / 10.0).toArray();
    double[] y = IntStream.range(0, 30).mapToDouble(i -> (i * 53 % 7) / 10.0).toArray();
    var sampled = new PairedComparison(1_000, 5_000, 11).compare(ownGroups(30), x, y);
    assertFalse(sampled.exact());
    assertEquals(sampled, new PairedComparison(1_000, 5_000, 11).compare(ownGroups(30), x, y));
  }

  @Test
  void badInputIsRefusedWithWhatIsWrong() {
    var e = assertThrows(IllegalArgumentException.class,
        () -> STATS.compare(new String[] {"g"}, new double[] {1}, new double[] {1, 2}));
    assertTrue(e.getMessage().contains("1, 1 and 2"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> STATS.compare(new String[] {"g", "h"}, new double[] {1, 2}, new double[] {1, 2, 3}));
    assertTrue(e.getMessage().contains("differ in length"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> STATS.compare(new String[0], new double[0], new double[0]));
    assertTrue(e.getMessage().contains("no queries"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> STATS.compare(new String[] {"g", "h"}, new double[] {0.5, Double.NaN}, new double[] {0, 0}));
    assertTrue(e.getMessage().contains("query 1") && e.getMessage().contains("not finite"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> STATS.compare(new String[] {"g"}, new double[] {0}, new double[] {Double.POSITIVE_INFINITY}));
    e = assertThrows(IllegalArgumentException.class,
        () -> STATS.compare(new String[] {null}, new double[] {0}, new double[] {0}));
    assertTrue(e.getMessage().contains("no group"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new PairedComparison(0, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> new PairedComparison(1, 0, 1));
  }

  @Test
  void studentsThatDisagreeWidenTheReplicateIntervalNotTheGroupOne() {
    // Three students of one recipe on 12 queries in 6 groups: two gain 0.1 on every query, the
    // third loses 0.1 on every one. Per query the mean gain is +1/30 everywhere, so the groups
    // alone leave no doubt (a zero-width interval); resampling the students, all three draws are
    // the losing one with probability 1/27 (3.7%, above 2.5%), so the interval reaches -0.1.
    String[] group = IntStream.range(0, 12).mapToObj(i -> "g" + i / 2).toArray(String[]::new);
    double[][] b = new double[3][12];
    double[][] a = new double[3][12];
    for (int r = 0; r < 3; r++) {
      for (int i = 0; i < 12; i++) {
        b[r][i] = 0.2 + 0.01 * i;
        a[r][i] = b[r][i] + (r < 2 ? 0.1 : -0.1);
      }
    }
    var r = STATS.compareReplicates(group, a, b);
    assertEquals(0.1 / 3, r.pooled().meanDifference(), 1e-12);
    assertEquals(0.1 / 3, r.pooled().low(), 1e-12);
    assertEquals(0.1 / 3, r.pooled().high(), 1e-12);
    assertEquals(12, r.pooled().wins());
    assertEquals(6, r.pooled().groups());
    assertArrayEquals(new double[] {0.1, 0.1, -0.1}, r.perReplicate(), 1e-12);
    assertEquals(-0.1, r.low(), 1e-12);
    assertEquals(0.1, r.high(), 1e-12);
  }

  @Test
  void studentsThatAgreeGiveTheGroupInterval() {
    // Identical replicates add no spread: resampling them changes nothing, so the interval is
    // the groups' one, up to the bootstrap's own noise.
    String[] group = IntStream.range(0, 40).mapToObj(i -> "g" + i / 4).toArray(String[]::new);
    double[] x = IntStream.range(0, 40).mapToDouble(i -> (i * 7 % 10) / 10.0 + 0.05).toArray();
    double[] y = IntStream.range(0, 40).mapToDouble(i -> (i * 3 % 10) / 10.0).toArray();
    var single = STATS.compare(group, x, y);
    var r = STATS.compareReplicates(group, new double[][] {x, x, x}, new double[][] {y, y, y});
    // The same comparison, up to the rounding of a mean of three equal numbers.
    assertEquals(single.meanDifference(), r.pooled().meanDifference(), 1e-12);
    assertEquals(single.low(), r.pooled().low(), 1e-12);
    assertEquals(single.high(), r.pooled().high(), 1e-12);
    assertEquals(single.p(), r.pooled().p(), 1e-12);
    assertEquals(single.wins(), r.pooled().wins());
    assertEquals(single.losses(), r.pooled().losses());
    assertArrayEquals(new double[] {0.05, 0.05, 0.05}, r.perReplicate(), 1e-12);
    assertEquals(single.low(), r.low(), 0.01);
    assertEquals(single.high(), r.high(), 0.01);
    assertTrue(r.high() - r.low() > 0.1, r.toString());
  }

  @Test
  void replicatesOfUnequalSizeAreRefused() {
    var e = assertThrows(IllegalArgumentException.class, () -> STATS.compareReplicates(new String[] {"g", "h"},
        new double[][] {{1, 2}, {1}}, new double[][] {{1, 2}, {1, 2}}));
    assertTrue(e.getMessage().contains("replicate 1"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> STATS.compareReplicates(new String[] {"g"},
        new double[][] {{1}}, new double[][] {{1}, {2}}));
    assertTrue(e.getMessage().contains("1 and 2 replicates"), e.getMessage());
  }
}
