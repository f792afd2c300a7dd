package arbor.synthesis;

import java.util.List;
import java.util.Optional;

/**
 * What a generator sees of one group: its papers in group order (the seed first), each with the
 * source questions it owns.
 */
public record GroupContext(String groupId, String seedPaperId, List<Member> members) {

  public record Member(String paperId, String title, String abstractText, List<String> cleanParagraphs, double score,
      List<SourceQuestion> questions) {}

  /** A question that came with a paper, with one list of evidence paragraphs per annotator. */
  public record SourceQuestion(String questionId, String question, List<List<String>> evidence) {}

  public Optional<Member> member(String paperId) {
    return members.stream().filter(m -> m.paperId().equals(paperId)).findFirst();
  }
}
