package arbor.ingest;

import java.util.ArrayList;
import java.util.List;

/** Everything one input file yielded: papers, questions, and per-item errors. */
public record Parsed(List<Paper> papers, List<SourceQuestion> questions, List<IngestError> errors) {

  public static Parsed of(Paper paper) {
    return new Parsed(List.of(paper), List.of(), List.of());
  }

  public static Parsed error(String source, String path, String reason) {
    return new Parsed(List.of(), List.of(), List.of(new IngestError(source, path, reason)));
  }

  /** A mutable collector for readers that yield many items from one file. */
  public static final class Builder {
    private final List<Paper> papers = new ArrayList<>();
    private final List<SourceQuestion> questions = new ArrayList<>();
    private final List<IngestError> errors = new ArrayList<>();

    public Builder paper(Paper p) { papers.add(p); return this; }
    public Builder question(SourceQuestion q) { questions.add(q); return this; }
    public Builder error(IngestError e) { errors.add(e); return this; }

    public Parsed build() {
      return new Parsed(List.copyOf(papers), List.copyOf(questions), List.copyOf(errors));
    }
  }
}
