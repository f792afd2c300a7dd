package arbor.synthesis;

import arbor.conf.OfflineSettings;
import arbor.ingest.Hashes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Questions without a model, built from the group's own text so that their evidence is known by
 * construction (method in {@code docs/dataset.md}). A question is about one term (an acronym or
 * a two-word phrase) that some, not all, papers of the group use: its evidence is every clean
 * paragraph of the group that mentions the term, so it is complete; a term mentioned in more
 * paragraphs of a paper than {@code evidencePerPaper} is too common to be a question. One paper
 * gives a question that names the paper; several give a question across the group.
 */
public final class OfflineGenerator implements QueryGenerator {
  public static final String NAME = "offline";

  private static final List<String> ABOUT_ONE = List.of(
      "How does the paper \"%2$s\" use %1$s?",
      "What does \"%2$s\" say about %1$s?",
      "In \"%2$s\", what role does %1$s play?",
      "How is %1$s defined or applied in \"%2$s\"?");
  private static final List<String> ACROSS = List.of(
      "Which of these papers discuss %1$s, and what does each of them say about it?",
      "How do these papers use %1$s, and where do their uses differ?",
      "What do the papers in this group report about %1$s?",
      "Which papers rely on %1$s, and for what purpose?");

  private final OfflineSettings settings;
  private final long seed;

  public OfflineGenerator(OfflineSettings settings, long seed) {
    this.settings = settings;
    this.seed = seed;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Outcome generate(GroupContext group, int max) {
    int n = group.members().size();
    Map<Tier, List<Terms.Term>> byTier = new LinkedHashMap<>();
    for (Tier t : List.of(Tier.WIDE_NET, Tier.MID_RANGE, Tier.FOCUSED, Tier.SINGLETON)) byTier.put(t, new ArrayList<>());
    for (Terms.Term term : Terms.of(group, settings.minTermCount())) {
      boolean someNotAll = n == 1 || term.papers() < n;
      boolean fewParagraphs = term.paragraphs().values().stream().allMatch(p -> p.size() <= settings.evidencePerPaper());
      if (someNotAll && fewParagraphs) byTier.get(Tier.of(term.papers())).add(term);
    }
    Comparator<Terms.Term> best = Comparator.comparingDouble((Terms.Term t) -> -score(t)).thenComparing(Terms.Term::text);
    byTier.values().forEach(list -> list.sort(best));

    // Round-robin over tiers, widest first, so a group's questions span different numbers of papers.
    List<Query> queries = new ArrayList<>();
    Set<Set<String>> usedEvidence = new HashSet<>();
    boolean progress = true;
    while (queries.size() < max && progress) {
      progress = false;
      for (List<Terms.Term> candidates : byTier.values()) {
        while (!candidates.isEmpty() && queries.size() < max) {
          Query q = query(group, candidates.remove(0));
          Set<String> texts = new HashSet<>();
          q.evidence().forEach(e -> texts.add(e.paperId() + "\u0000" + e.text()));
          if (usedEvidence.add(texts)) {
            queries.add(q);
            progress = true;
            break;
          }
        }
      }
    }
    return Outcome.of(queries, List.of());
  }

  /** Mentions count, capped per paper so one long paper does not decide; names rank above phrases. */
  private static double score(Terms.Term t) {
    double s = t.counts().values().stream().mapToDouble(c -> Math.min(c, 6)).sum();
    return t.acronym() ? s + 2 : s;
  }

  private Query query(GroupContext group, Terms.Term term) {
    List<Evidence> evidence = new ArrayList<>();
    for (var paper : term.paragraphs().entrySet()) {
      List<String> paragraphs = group.member(paper.getKey()).orElseThrow().cleanParagraphs();
      for (int j : paper.getValue()) evidence.add(new Evidence(paper.getKey(), paragraphs.get(j)));
    }
    int pick = (int) Long.remainderUnsigned(Long.parseUnsignedLong(
        Hashes.sha256(seed + "\u0000" + group.groupId() + "\u0000" + term.text()).substring(0, 15), 16), 4);
    String question;
    if (term.papers() == 1) {
      String title = group.member(term.paragraphs().keySet().iterator().next()).orElseThrow().title().strip();
      question = String.format(ABOUT_ONE.get(pick), term.text(), title);
    } else {
      question = String.format(ACROSS.get(pick), term.text());
    }
    return new Query(group.groupId(), question, evidence, NAME, null);
  }
}
