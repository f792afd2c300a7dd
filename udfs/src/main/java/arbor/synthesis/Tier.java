package arbor.synthesis;

/** How many papers a query's evidence spans (method.md section 4). */
public enum Tier {
  SINGLETON, FOCUSED, MID_RANGE, WIDE_NET;

  public static Tier of(int evidencePapers) {
    if (evidencePapers < 1) throw new IllegalArgumentException("a query needs evidence from at least one paper, got " + evidencePapers);
    if (evidencePapers == 1) return SINGLETON;
    if (evidencePapers == 2) return FOCUSED;
    return evidencePapers <= 4 ? MID_RANGE : WIDE_NET;
  }

  /** The name stored in {@code queries.tier}: {@code singleton}, {@code focused}, {@code mid-range}, {@code wide-net}. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
