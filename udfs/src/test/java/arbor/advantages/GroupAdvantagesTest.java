package arbor.advantages;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GroupAdvantagesTest {
  static final double[] REWARDS = {0.9, 0.2, 0.6, 0.6, 0.1, 0.8, 0.4, 0.5};

  @Test
  void advantagesAreRewardMinusMeanOverSampleStdPlusEpsilon() {
    double[] a = GroupAdvantages.of(REWARDS);
    // mean = 4.1 / 8 = 0.5125; squared deviations sum to 0.52875; sample std = sqrt(0.52875 / 7)
    // = 0.274837614; A_0 = (0.9 - 0.5125) / (0.274837614 + 1e-6) = 1.409918
    assertEquals(1.409918329, a[0], 1e-8);
    // A_4 = (0.1 - 0.5125) / 0.274838614 = -1.500881
    assertEquals(-1.500880802, a[4], 1e-8);
    // Equal rewards get equal advantages.
    assertEquals(a[2], a[3]);
  }

  @Test
  void theAdvantagesOfAGroupSumToZero() {
    double sum = 0;
    for (double x : GroupAdvantages.of(REWARDS)) sum += x;
    assertEquals(0, sum, 1e-12);
  }

  @Test
  void threeRootsUseTheSampleStandardDeviation() {
    // rewards 1, 0, 0.5: mean 0.5, sample std sqrt((0.25 + 0.25 + 0) / 2) = 0.5 (the population
    // std would be 0.408); A = +-0.5 / (0.5 + 1e-6) = +-0.999998
    assertArrayEquals(new double[] {0.999998000004, -0.999998000004, 0}, GroupAdvantages.of(new double[] {1, 0, 0.5}), 1e-12);
  }

  @Test
  void allEqualRewardsGiveZeroAdvantageAndAreFlat() {
    double[] equal = {0.4, 0.4, 0.4, 0.4};
    assertArrayEquals(new double[4], GroupAdvantages.of(equal));
    assertTrue(GroupAdvantages.flat(equal));
    assertFalse(GroupAdvantages.flat(REWARDS));
  }

  @Test
  void aLoneScoredRootGetsZero() {
    // Its infrastructure-failed siblings are left out: one reward has no spread to normalise by.
    assertArrayEquals(new double[1], GroupAdvantages.of(new double[] {0.7}));
    assertArrayEquals(new double[0], GroupAdvantages.of(new double[0]));
  }
}
