package arbor.advantages;

/**
 * Group-normalised advantages of one query's rewards in memory, for learner tests that build
 * their own groups: {@code A_g = (r_g - mean(r)) / (std(r) + eps)} with the sample standard
 * deviation, zero for a flat group or a lone root. The training step's are the Advantages
 * stage's (pipelines), whose tests check these figures on Spark.
 */
public final class GroupAdvantages {
  private GroupAdvantages() {}

  private static final double EPSILON = 1e-6;

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

  private static boolean flat(double[] rewards) {
    for (double r : rewards) if (r != rewards[0]) return false;
    return true;
  }
}
