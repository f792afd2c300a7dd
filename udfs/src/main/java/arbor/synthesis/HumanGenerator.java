package arbor.synthesis;

import java.util.ArrayList;
import java.util.List;

/**
 * Questions that came with the source (QASPER), attached to the group that owns their paper, and
 * worded for the group: "What datasets do they use?" becomes "In the paper "Title", what
 * datasets do they use?", since among ten papers only its own paper's evidence is annotated.
 * The evidence is the annotated paragraphs of one annotator (the one with the most paragraphs
 * found verbatim in the paper's clean text); figure and table captions ({@code FLOAT SELECTED})
 * are not paragraphs and are left out. Unanswerable questions never reach this generator.
 */
public final class HumanGenerator implements QueryGenerator {
  public static final String NAME = "human";
  private static final String FLOAT = "FLOAT SELECTED";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Outcome generate(GroupContext group, int max) {
    List<Query> queries = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (GroupContext.Member member : group.members()) {
      for (GroupContext.SourceQuestion q : member.questions()) {
        if (queries.size() >= max) return Outcome.of(queries, skipped);
        List<Evidence> evidence = bestAnnotator(member, q);
        if (evidence.isEmpty()) {
          skipped.add("human: no annotator's evidence is verbatim in the clean paragraphs (" + q.questionId() + ")");
        } else {
          queries.add(new Query(group.groupId(), scoped(q.question(), member.title()), evidence, NAME, q.questionId()));
        }
      }
    }
    return Outcome.of(queries, skipped);
  }

  /** The question scoped to its paper by title; its first letter lower-cased unless it starts an acronym. */
  public static String scoped(String question, String title) {
    String q = question.strip();
    boolean acronym = q.length() > 1 && Character.isUpperCase(q.charAt(1));
    if (!q.isEmpty() && !acronym) q = Character.toLowerCase(q.charAt(0)) + q.substring(1);
    return "In the paper \"" + title.strip() + "\", " + q;
  }

  /** The evidence of the annotator whose paragraphs all occur verbatim, the most of them; empty when none. */
  static List<Evidence> bestAnnotator(GroupContext.Member member, GroupContext.SourceQuestion q) {
    List<Evidence> best = List.of();
    for (List<String> annotator : q.evidence()) {
      List<Evidence> found = new ArrayList<>();
      boolean allFound = true;
      for (String paragraph : annotator) {
        String text = paragraph.strip();
        if (text.isEmpty() || text.startsWith(FLOAT)) continue;
        if (member.cleanParagraphs().stream().anyMatch(p -> p.contains(text))) found.add(new Evidence(member.paperId(), text));
        else allFound = false;
      }
      if (allFound && found.size() > best.size()) best = found;
    }
    return best;
  }
}
