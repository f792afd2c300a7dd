package arbor.synthesis;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Whether a query is solved by one literal search: some word of the question, searched
 * case-insensitively over the paragraphs, hits every evidence paragraph and at most as many
 * others again (precision at least one half). A question that names its evidence's rare term
 * is solved this way; a question about what a paper's parts are for is not.
 */
public final class LiteralShortcut {
  private LiteralShortcut() {}

  /** The words of a question that a search could be made of: three letters or more, lower case. */
  public static Set<String> words(String question) {
    Set<String> out = new LinkedHashSet<>();
    for (String w : question.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
      if (w.length() >= 3) out.add(w);
    }
    return out;
  }

  /**
   * The word that solves it, or null.
   *
   * @param paragraphs every paragraph a search would run over (the group's)
   * @param evidence the evidence paragraphs, a subset of {@code paragraphs}
   */
  public static String solvingWord(String question, List<String> paragraphs, Set<String> evidence) {
    if (evidence.isEmpty()) return null;
    List<String> lower = paragraphs.stream().map(p -> p.toLowerCase(Locale.ROOT)).toList();
    for (String w : words(question)) {
      int hits = 0;
      int found = 0;
      for (int i = 0; i < lower.size(); i++) {
        if (!lower.get(i).contains(w)) continue;
        hits++;
        if (evidence.contains(paragraphs.get(i))) found++;
      }
      if (found == evidence.size() && hits <= 2 * evidence.size()) return w;
    }
    return null;
  }

  /** {@link #solvingWord} over a group: its members' paragraphs, the query's evidence texts. */
  public static String solvingWord(Query query, GroupContext group) {
    List<String> paragraphs = group.members().stream().flatMap(m -> m.cleanParagraphs().stream()).toList();
    Set<String> evidence = new LinkedHashSet<>();
    for (Evidence e : query.evidence()) {
      for (String p : group.member(e.paperId()).map(GroupContext.Member::cleanParagraphs).orElse(List.of())) {
        if (p.contains(e.text())) {
          evidence.add(p);
          break;
        }
      }
    }
    return solvingWord(query.question(), paragraphs, evidence);
  }
}
