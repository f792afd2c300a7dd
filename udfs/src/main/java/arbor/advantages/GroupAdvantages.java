package arbor.advantages;

/**
 * Group-normalised advantages (method section 8): {@code A_g = (r_g - mean(r)) / (std(r) + eps)}
 * over the scored roots of one query, with the sample standard deviation and {@code eps = 1e-6}.
 * A group whose rewards are all equal, or that has a single scored root, gets zero advantages.
 */
public final class GroupAdvantages {
  private GroupAdvantages() {}

  public static final double EPSILON = 1e-6;

  public static double[] of(double[] rewards) {
    int n = rewards.length;
    double[] out = new double[n];
    if (n < 2 || flat(rewards)) return out;
    double mean = 0;
    for (double r : rewards) mean += r;
    mean /= n;
    double squares = 0;
    for (double r : rewards) squares += (r - mean) * (r - mean);
    double std = Math.sqrt(squares / (n - 1));
    for (int i = 0; i < n; i++) out[i] = (rewards[i] - mean) / (std + EPSILON);
    return out;
  }

  /** Whether every reward of the group is the same (such a group teaches nothing; it is counted). */
  public static boolean flat(double[] rewards) {
    for (double r : rewards) if (r != rewards[0]) return false;
    return true;
  }
}
