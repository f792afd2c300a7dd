package arbor.synthesis;

import java.util.ArrayList;
import java.util.List;

/** Small hand-written groups for the generator tests. */
final class Groups {
  private Groups() {}

  static GroupContext.Member paper(String id, String title, String... paragraphs) {
    return new GroupContext.Member(id, title, "An abstract of " + title + ".", List.of(paragraphs), 0.0, List.of());
  }

  static GroupContext.Member withQuestions(GroupContext.Member m, GroupContext.SourceQuestion... questions) {
    return new GroupContext.Member(m.paperId(), m.title(), m.abstractText(), m.cleanParagraphs(), m.score(), List.of(questions));
  }

  static GroupContext group(GroupContext.Member... members) {
    return new GroupContext("g-test", members[0].paperId(), new ArrayList<>(List.of(members)));
  }
}
