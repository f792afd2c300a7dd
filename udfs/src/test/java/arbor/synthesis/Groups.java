package arbor.synthesis;

import java.util.ArrayList;
import java.util.List;

/** Small hand-written groups for the generator tests. */
final class Groups {
  private Groups() {}

  /** A paper without headings; its noisy text is its paragraphs, one a line. */
  static GroupContext.Member paper(String id, String title, String... paragraphs) {
    return new GroupContext.Member(id, title, "An abstract of " + title + ".", List.of(paragraphs),
        java.util.Collections.nCopies(paragraphs.length, ""), String.join("\n", paragraphs), 0.0, List.of());
  }

  /**
   * A paper with headings: {@code parts} alternate heading and paragraph ({@code "# Datasets",
   * "We use ...", "More ...", "# Baselines", ...}): a part starting with "# " is a heading.
   */
  static GroupContext.Member sectioned(String id, String title, String... parts) {
    List<String> paragraphs = new ArrayList<>();
    List<String> sections = new ArrayList<>();
    String heading = "";
    for (String part : parts) {
      if (part.startsWith("# ")) heading = part.substring(2);
      else {
        paragraphs.add(part);
        sections.add(heading);
      }
    }
    return new GroupContext.Member(id, title, "An abstract of " + title + ".", paragraphs, sections,
        String.join("\n", paragraphs), 0.0, List.of());
  }

  static GroupContext.Member withQuestions(GroupContext.Member m, GroupContext.SourceQuestion... questions) {
    return new GroupContext.Member(m.paperId(), m.title(), m.abstractText(), m.cleanParagraphs(), m.sections(), m.noisyText(),
        m.score(), List.of(questions));
  }

  static GroupContext.Member withNoisyText(GroupContext.Member m, String noisy) {
    return new GroupContext.Member(m.paperId(), m.title(), m.abstractText(), m.cleanParagraphs(), m.sections(), noisy,
        m.score(), m.questions());
  }

  static GroupContext group(GroupContext.Member... members) {
    return new GroupContext("g-test", members[0].paperId(), new ArrayList<>(List.of(members)));
  }
}
