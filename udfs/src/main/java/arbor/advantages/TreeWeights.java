package arbor.advantages;

import arbor.conf.AdvantageSettings;

/**
 * Node weights of one rollout tree (method section 8): {@code w(root) = 1},
 * {@code w(child of y) = w(y) / k_y} with {@code k_y} the children {@code y} really has. Under
 * {@code token_mean} every node weighs 1; under {@code one_child} only one child per node is
 * kept ({@link OneChild}), at its parent's weight, and the others (with their subtrees) weigh 0.
 *
 * <p>Nodes are given by parent index ({@code -1} for the root), parents before children.
 */
public final class TreeWeights {
  private TreeWeights() {}

  public static double[] of(int[] parent, AdvantageSettings.Reduction reduction) {
    int[] children = childCounts(parent);
    double[] w = new double[parent.length];
    for (int i = 0; i < parent.length; i++) {
      int p = parent[i];
      if (p < 0) w[i] = 1;
      else if (p >= i) throw new IllegalArgumentException("node " + i + " comes before its parent " + p);
      else w[i] = reduction == AdvantageSettings.Reduction.TOKEN_MEAN ? 1 : w[p] / children[p];
    }
    return w;
  }

  /**
   * Weights with one child kept per node: {@code chosen[i]} says whether node {@code i} is its
   * parent's drawn child (ignored for the root).
   */
  public static double[] oneChild(int[] parent, boolean[] chosen) {
    double[] w = new double[parent.length];
    for (int i = 0; i < parent.length; i++) {
      int p = parent[i];
      w[i] = p < 0 ? 1 : chosen[i] ? w[p] : 0;
    }
    return w;
  }

  static int[] childCounts(int[] parent) {
    int[] k = new int[parent.length];
    for (int p : parent) if (p >= 0) k[p]++;
    return k;
  }
}
