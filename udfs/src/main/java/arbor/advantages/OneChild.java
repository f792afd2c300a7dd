package arbor.advantages;

/**
 * The {@code one_child} draw: which of a node's {@code k} children (ordered by child index) is
 * kept, uniformly and reproducibly from the seed and the parent's id. Spark stages call this same
 * function, so a stage and an in-memory computation agree.
 */
public final class OneChild {
  private OneChild() {}

  /** The rank (0-based, in child-index order) of the kept child among {@code k}. */
  public static int pick(long seed, String parentId, int k) {
    if (k <= 0) throw new IllegalArgumentException("a parent with " + k + " children has none to pick");
    long z = seed * 0x9E3779B97F4A7C15L + parentId.hashCode();
    // SplitMix64's finaliser: nearby seeds and ids give unrelated draws.
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z ^= z >>> 31;
    return (int) Math.floorMod(z, (long) k);
  }
}
