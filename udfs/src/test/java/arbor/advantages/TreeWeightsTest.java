package arbor.advantages;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.AdvantageSettings.Reduction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TreeWeightsTest {

  /** A depth-1 tree: the root and {@code k} children. */
  static int[] star(int k) {
    int[] parent = new int[k + 1];
    parent[0] = -1;
    return parent;
  }

  /** A full tree of {@code depth} levels below the root and the given branching, parents first. */
  static int[] full(int depth, int branching) {
    List<Integer> parents = new ArrayList<>(List.of(-1));
    int levelStart = 0;
    int levelSize = 1;
    for (int d = 1; d <= depth; d++) {
      for (int p = levelStart; p < levelStart + levelSize; p++) for (int c = 0; c < branching; c++) parents.add(p);
      levelStart += levelSize;
      levelSize *= branching;
    }
    return parents.stream().mapToInt(Integer::intValue).toArray();
  }

  static double sum(double[] xs) {
    double s = 0;
    for (double x : xs) s += x;
    return s;
  }

  @Test
  void theBranchiestRootHolds37PercentOfTheWeightWithoutNormalisationAnd14PercentWithIt() {
    int[] children = {1, 5, 0, 3, 12, 2, 0, 4};
    double totalTree = 0;
    double totalFlat = 0;
    double branchiestTree = 0;
    double branchiestFlat = 0;
    for (int k : children) {
      double tree = sum(TreeWeights.of(star(k), Reduction.TREE));
      double flat = sum(TreeWeights.of(star(k), Reduction.TOKEN_MEAN));
      totalTree += tree;
      totalFlat += flat;
      if (k == 12) {
        branchiestTree = tree;
        branchiestFlat = flat;
      }
    }
    // Unnormalised: 8 roots + 27 children = 35 nodes of weight 1; the 12-child tree has 13: 13/35 = 37.1%.
    assertEquals(35, totalFlat);
    assertEquals(0.371, branchiestFlat / totalFlat, 5e-4);
    // 1/k: a tree with children weighs 1 + k * (1/k) = 2, one without weighs 1: 6 * 2 + 2 = 14; 2/14 = 14.3%.
    assertEquals(14, totalTree, 1e-12);
    assertEquals(0.143, branchiestTree / totalTree, 5e-4);
  }

  @Test
  void aFullTreeOfDepth4AndBranching6Has1555NodesAndTotalWeight5() {
    int[] parent = full(4, 6);
    // 1 + 6 + 36 + 216 + 1296 = 1555 nodes; each level's weights sum to 1, five levels: 5.
    assertEquals(1555, parent.length);
    double[] w = TreeWeights.of(parent, Reduction.TREE);
    assertEquals(5, sum(w), 1e-9);
    // A leaf weighs 1/6^4 = 1/1296.
    assertEquals(1.0 / 1296, w[1554], 1e-15);
    assertEquals(1555, sum(TreeWeights.of(parent, Reduction.TOKEN_MEAN)));
  }

  @Test
  void weightsDivideByTheChildrenEachParentReallyHasDownToDepth3() {
    // root(0) -> a(1), b(2); a -> c(3), d(4), e(5); c -> f(6)
    int[] parent = {-1, 0, 0, 1, 1, 1, 3};
    // a, b: 1/2; c, d, e: (1/2)/3 = 1/6; f: (1/6)/1 = 1/6
    assertArrayEquals(new double[] {1, 0.5, 0.5, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6}, TreeWeights.of(parent, Reduction.TREE), 1e-15);
    // total 1 + 1 + 0.5 + 1/6 = 2.667: it grows with depth, not with the 7 nodes.
    assertEquals(1 + 1 + 0.5 + 1.0 / 6, sum(TreeWeights.of(parent, Reduction.TREE)), 1e-12);
  }

  @Test
  void oneChildKeepsTheDrawnChildAtItsParentsWeightAndDropsTheRest() {
    int[] parent = {-1, 0, 0, 1, 1, 1, 3};
    boolean[] chosen = {false, true, false, false, true, false, true};
    // a kept (1), b dropped (0); under a, d kept (1); c dropped, so its child f weighs 0 too.
    assertArrayEquals(new double[] {1, 1, 0, 0, 1, 0, 0}, TreeWeights.oneChild(parent, chosen));
  }

  @Test
  void theOneChildDrawIsReproducibleInRangeAndUsesEveryChild() {
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      int pick = OneChild.pick(11, "node-" + i, 4);
      assertTrue(pick >= 0 && pick < 4);
      assertEquals(pick, OneChild.pick(11, "node-" + i, 4));
      seen.add(pick);
    }
    assertEquals(Set.of(0, 1, 2, 3), seen);
    assertEquals(0, OneChild.pick(5, "x", 1));
    assertThrows(IllegalArgumentException.class, () -> OneChild.pick(5, "x", 0));
  }

  @Test
  void aChildListedBeforeItsParentIsRejected() {
    var e = assertThrows(IllegalArgumentException.class, () -> TreeWeights.of(new int[] {-1, 2, 0}, Reduction.TREE));
    assertTrue(e.getMessage().contains("node 1 comes before its parent 2"));
  }
}
