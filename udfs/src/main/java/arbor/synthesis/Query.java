package arbor.synthesis;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A generated query before its split is known.
 *
 * @param sourceId the id of the question it came from ({@code human}: the QASPER question id),
 *     else null
 */
public record Query(String groupId, String question, List<Evidence> evidence, String generator, String sourceId) {

  public Set<String> evidencePapers() {
    Set<String> papers = new LinkedHashSet<>();
    evidence.forEach(e -> papers.add(e.paperId()));
    return papers;
  }

  public Tier tier() {
    return Tier.of(evidencePapers().size());
  }

  /** Stable across runs: the same group, generator and question always get the same id. */
  public String queryId() {
    return "q-" + arbor.text.Hashes.sha256(groupId + "\u0000" + generator + "\u0000" + question).substring(0, 20);
  }
}
