package arbor.synthesis;

import java.util.List;
import java.util.Optional;

/**
 * What a generator sees of one group: its papers in group order (the seed first), each with the
 * source questions it owns.
 */
public record GroupContext(String groupId, String seedPaperId, List<Member> members) {

  /**
   * @param sections the heading each clean paragraph sits under, one per paragraph ({@code ""}
   *     where the source had none)
   * @param noisyText the text the policy reads; ground truth must be locatable in it
   */
  public record Member(String paperId, String title, String abstractText, List<String> cleanParagraphs,
      List<String> sections, String noisyText, double score, List<SourceQuestion> questions) {

    public Member {
      if (sections.size() != cleanParagraphs.size()) {
        throw new IllegalArgumentException("paper " + paperId + ": " + sections.size() + " heading(s) for "
            + cleanParagraphs.size() + " paragraph(s)");
      }
    }

    public String section(int paragraph) {
      return sections.get(paragraph);
    }
  }

  /** A question that came with a paper, with one list of evidence paragraphs per annotator. */
  public record SourceQuestion(String questionId, String question, List<List<String>> evidence) {}

  public Optional<Member> member(String paperId) {
    return members.stream().filter(m -> m.paperId().equals(paperId)).findFirst();
  }
}
