package arbor.ingest;

import arbor.conf.IngestSettings;
import java.io.IOException;
import java.util.Optional;

/**
 * Reads one input file with the reader its kind calls for. Never throws for bad input: every
 * problem becomes an {@link IngestError} that names the file.
 */
public final class FileParser {

  /** Reads a file's bytes; Hadoop's file system on executors, plain files in tests. */
  @FunctionalInterface
  public interface Bytes {
    byte[] read(String path) throws IOException;
  }

  private final IngestSettings settings;
  private final PdfPaperReader pdf;
  private final MarkdownPaperReader markdown;
  private final QasperJsonReader qasper;
  private final JsonLinesReader jsonl;

  public FileParser(IngestSettings settings) {
    this.settings = settings;
    TextPapers papers = new TextPapers(new PdfNoise(settings.noise()), settings.defaultScore());
    this.pdf = new PdfPaperReader(settings);
    this.markdown = new MarkdownPaperReader(papers);
    this.qasper = new QasperJsonReader(papers);
    this.jsonl = new JsonLinesReader(papers);
  }

  public Parsed parse(SourceFile file, Bytes bytes) {
    long limit = (long) settings.maxFileMb() * 1024 * 1024;
    if (file.sizeBytes() > limit) {
      return Parsed.error(file.kind().source, file.path(), String.format(
          "file is %.1f MB, over the limit of %d MB (ingest.max_file_mb)", file.sizeBytes() / 1048576.0, settings.maxFileMb()));
    }
    try {
      byte[] content = bytes.read(file.path());
      return switch (file.kind()) {
        case PDF -> pdf.read(file.paperId(), file.path(), content, companion(file, bytes));
        case MARKDOWN -> markdown.read(file.paperId(), file.path(), content);
        case JSON -> qasper.read(file.path(), content);
        case JSONL -> jsonl.read(file.path(), content);
      };
    } catch (IOException e) {
      return Parsed.error(file.kind().source, file.path(), "cannot read file: " + e);
    } catch (RuntimeException | StackOverflowError e) {
      // A reader bug on one odd file must not fail the whole task and lose the other files.
      return Parsed.error(file.kind().source, file.path(), "reader failed: " + e);
    }
  }

  private static Optional<PdfPaperReader.Companion> companion(SourceFile file, Bytes bytes) throws IOException {
    if (file.companion() == null) return Optional.empty();
    return Optional.of(new PdfPaperReader.Companion(file.companion(), bytes.read(file.companion())));
  }
}
