package arbor.synthesis;

import arbor.conf.OfflineSettings;
import arbor.text.Hashes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Questions without a model, built from the papers' structure (method in {@code docs/dataset.md}).
 * A section's heading says what it is for ({@link SectionRole}: the data, the baselines, the
 * metrics, the limitations, ...); the question asks for that content in other words, and its
 * evidence is every paragraph under every heading of that role: complete by construction for the
 * question as worded. About one paper, the question names the paper; across papers, it asks each
 * paper that has such a section. A candidate that one literal search of a question word solves
 * ({@link LiteralShortcut}) is not used: the policy should learn to select evidence, not to
 * look a word up.
 */
public final class OfflineGenerator implements QueryGenerator {
  public static final String NAME = "offline";

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

  private record Candidate(String question, List<Evidence> evidence, String order) {}

  @Override
  public Outcome generate(GroupContext group, int max) {
    Map<Tier, List<Candidate>> byTier = new LinkedHashMap<>();
    for (Tier t : List.of(Tier.WIDE_NET, Tier.MID_RANGE, Tier.FOCUSED, Tier.SINGLETON)) byTier.put(t, new ArrayList<>());
    sections(group).forEach((role, papers) -> {
      Map<String, List<Integer>> fitting = new LinkedHashMap<>();
      papers.forEach((paper, paragraphs) -> {
        if (paragraphs.size() <= settings.maxSectionParagraphs()) fitting.put(paper, paragraphs);
      });
      int total = papers.values().stream().mapToInt(List::size).sum();
      // Across papers only when every such section fits: leaving one out would make the evidence incomplete.
      if (papers.size() >= 2 && fitting.size() == papers.size() && total <= settings.maxEvidence()) {
        String seed = group.member(group.seedPaperId()).map(GroupContext.Member::title).orElse(group.members().get(0).title());
        byTier.get(Tier.of(papers.size())).add(candidate(group, role.across(seed), papers, role.name()));
      }
      fitting.forEach((paper, paragraphs) -> {
        String title = group.member(paper).orElseThrow().title();
        byTier.get(Tier.SINGLETON).add(candidate(group, role.aboutOne(title), Map.of(paper, paragraphs), role.name() + paper));
      });
    });
    byTier.values().forEach(list -> list.sort(Comparator.comparing(Candidate::order)));

    // Round-robin over tiers, widest first, so a group's questions span different numbers of papers.
    List<Query> queries = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    Set<Set<Evidence>> usedEvidence = new HashSet<>();
    boolean progress = true;
    while (queries.size() < max && progress) {
      progress = false;
      for (List<Candidate> candidates : byTier.values()) {
        while (!candidates.isEmpty() && queries.size() < max) {
          Candidate c = candidates.remove(0);
          Query q = new Query(group.groupId(), c.question(), c.evidence(), NAME, null);
          String word = LiteralShortcut.solvingWord(q, group);
          if (word != null) {
            skipped.add("offline: one search of a question word ('" + word + "') finds the evidence");
          } else if (usedEvidence.add(Set.copyOf(c.evidence()))) {
            queries.add(q);
            progress = true;
            break;
          }
        }
      }
    }
    return Outcome.of(queries, skipped);
  }

  /** role -> paper -> indexes of the paragraphs under headings of that role, in group and paper order. */
  static Map<SectionRole, Map<String, List<Integer>>> sections(GroupContext group) {
    Map<SectionRole, Map<String, List<Integer>>> out = new EnumMap<>(SectionRole.class);
    for (GroupContext.Member m : group.members()) {
      for (int j = 0; j < m.cleanParagraphs().size(); j++) {
        int paragraph = j;
        SectionRole.of(m.section(j)).ifPresent(role ->
            out.computeIfAbsent(role, r -> new LinkedHashMap<>()).computeIfAbsent(m.paperId(), p -> new ArrayList<>()).add(paragraph));
      }
    }
    return out;
  }

  private Candidate candidate(GroupContext group, String question, Map<String, List<Integer>> papers, String key) {
    List<Evidence> evidence = new ArrayList<>();
    papers.forEach((paper, paragraphs) -> {
      List<String> texts = group.member(paper).orElseThrow().cleanParagraphs();
      for (int j : paragraphs) evidence.add(new Evidence(paper, texts.get(j)));
    });
    // A seeded order, so that groups do not all ask about the same roles first.
    return new Candidate(question, evidence, Hashes.sha256(seed + "\u0000" + group.groupId() + "\u0000" + key));
  }
}
