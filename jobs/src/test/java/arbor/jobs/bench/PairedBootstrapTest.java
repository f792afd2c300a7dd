package arbor.jobs.bench;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/** Intervals whose values follow from the resampling distribution, worked out by hand. */
class PairedBootstrapTest {
  private final PairedBootstrap bootstrap = new PairedBootstrap(10_000, 7);

  @Test
  void aConstantDifferenceHasAZeroWidthInterval() {
    var i = bootstrap.difference(new double[] {0.9, 0.5, 0.7}, new double[] {0.4, 0.0, 0.2});
    assertEquals(0.5, i.mean(), 1e-12);
    assertEquals(0.5, i.low(), 1e-12);
    assertEquals(0.5, i.high(), 1e-12);
    assertEquals(3, i.n());
  }

  @Test
  void oneDifferentQueryOfFourGivesTheOrderStatisticsOfABinomial() {
    // d = [0, 0, 0, 1]: a resampled mean is K/4 with K ~ Binomial(4, 1/4). P(K = 0) = 0.316 > 2.5%,
    // so the low end is 0; P(K >= 3) = 0.051 > 2.5% but P(K = 4) = 0.004 < 2.5%, so the high end
    // is 3/4, not 1.
    var i = bootstrap.difference(new double[] {0.2, 0.2, 0.2, 1.0}, new double[] {0.2, 0.2, 0.2, 0.0});
    assertEquals(0.25, i.mean(), 1e-12);
    assertEquals(0.0, i.low(), 1e-12);
    assertEquals(0.75, i.high(), 1e-12);
  }

  @Test
  void theDifferenceIsPairedNotOfTwoIndependentMeans() {
    // Wildly different queries, one condition always 0.1 better: unpaired resampling would give a
    // wide interval, the paired one has none.
    var i = bootstrap.difference(new double[] {0.1, 0.6, 1.0, 0.3}, new double[] {0.0, 0.5, 0.9, 0.2});
    assertEquals(0.1, i.low(), 1e-9);
    assertEquals(0.1, i.high(), 1e-9);
  }

  @Test
  void theSameSeedGivesTheSameInterval() {
    double[] a = {0.3, 0.1, 0.8, 0.4, 0.0, 0.9};
    double[] b = {0.2, 0.4, 0.1, 0.4, 0.3, 0.5};
    var first = bootstrap.difference(a, b);
    assertEquals(first, new PairedBootstrap(10_000, 7).difference(a, b));
    assertTrue(first.low() < first.mean() && first.mean() < first.high(), first.toString());
  }

  @Test
  void badInputIsRefusedWithWhatIsWrong() {
    var e = assertThrows(IllegalArgumentException.class, () -> bootstrap.difference(new double[] {1}, new double[] {1, 2}));
    assertTrue(e.getMessage().contains("1 and 2"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> bootstrap.difference(new double[0], new double[0]));
    assertThrows(IllegalArgumentException.class, () -> bootstrap.difference(new double[] {Double.NaN}, new double[] {0}));
    assertThrows(IllegalArgumentException.class, () -> new PairedBootstrap(0, 1));
  }
}
