package arbor.ingest;

import java.util.Locale;
import java.util.Optional;

/** The input formats ingest understands, told apart by file extension. */
public enum SourceKind {
  PDF(PdfPaperReader.SOURCE),
  MARKDOWN(MarkdownPaperReader.SOURCE),
  JSON(QasperJsonReader.SOURCE),
  JSONL(JsonLinesReader.SOURCE);

  /** The name recorded in the {@code source} column. */
  public final String source;

  SourceKind(String source) {
    this.source = source;
  }

  public static Optional<SourceKind> of(String fileName) {
    String name = fileName.toLowerCase(Locale.ROOT);
    if (name.endsWith(".pdf")) return Optional.of(PDF);
    if (name.endsWith(".md") || name.endsWith(".txt")) return Optional.of(MARKDOWN);
    if (name.endsWith(".jsonl") || name.endsWith(".ndjson")) return Optional.of(JSONL);
    if (name.endsWith(".json")) return Optional.of(JSON);
    return Optional.empty();
  }

  /** LaTeX and Sweave sources are read beside their PDF, never on their own. */
  public static boolean isCompanion(String fileName) {
    String name = fileName.toLowerCase(Locale.ROOT);
    return name.endsWith(".tex") || name.endsWith(".rnw");
  }
}
