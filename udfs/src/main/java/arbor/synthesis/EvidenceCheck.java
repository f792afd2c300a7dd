package arbor.synthesis;

import java.util.Optional;

/**
 * The checks every query passes before it is written: it has evidence, each evidence paper is in
 * the group, and each evidence text is a verbatim substring of a clean paragraph of its paper.
 */
public final class EvidenceCheck {
  private EvidenceCheck() {}

  /** Why {@code query} must be dropped, or empty when it passes. */
  public static Optional<String> problem(Query query, GroupContext group) {
    if (query.question() == null || query.question().isBlank()) return Optional.of("empty question");
    if (query.evidence().isEmpty()) return Optional.of("no evidence");
    for (Evidence e : query.evidence()) {
      var member = group.member(e.paperId());
      if (member.isEmpty()) return Optional.of("evidence paper " + e.paperId() + " is not in group " + group.groupId());
      if (e.text() == null || e.text().isBlank()) return Optional.of("empty evidence text from " + e.paperId());
      if (member.get().cleanParagraphs().stream().noneMatch(p -> p.contains(e.text()))) {
        return Optional.of("evidence is not verbatim in the clean paragraphs of " + e.paperId());
      }
    }
    return Optional.empty();
  }
}
