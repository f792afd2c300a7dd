package arbor.conf;

import java.io.Serializable;

/**
 * Query counts of the fixed splits; every other query is {@code train}. Whole groups go to one
 * split, so splits never share a group. A fixed split holds at most {@code validation} (etc.)
 * queries and at most its {@code maxShare} of all queries, so a small dataset (the demo's 96
 * queries) still has a train split instead of landing wholly in validation and test.
 */
public record SplitSettings(int validation, int test, int sft, Shares maxShare) implements Serializable {

  /** The most each fixed split may take of all queries, in [0, 1]. */
  public record Shares(double validation, double test, double sft) implements Serializable {
    public Shares {
      for (double s : new double[] {validation, test, sft}) {
        if (!(s >= 0 && s <= 1)) {
          throw new IllegalArgumentException("synthesis.splits.max_share values must be in [0, 1], got " + s);
        }
      }
    }
  }

  /** The room of each fixed split for a dataset of {@code totalQueries} queries. */
  public long cap(String split, long totalQueries) {
    return switch (split) {
      case "validation" -> Math.min(validation, (long) Math.ceil(maxShare.validation() * totalQueries));
      case "test" -> Math.min(test, (long) Math.ceil(maxShare.test() * totalQueries));
      case "sft" -> Math.min(sft, (long) Math.ceil(maxShare.sft() * totalQueries));
      default -> throw new IllegalArgumentException("not a fixed split: " + split);
    };
  }
}
