package arbor.ingest;

import java.io.Serializable;

/**
 * One input file, as the driver listed it: where it is, what reader takes it, its size, the id
 * of the paper it holds (for single-paper files) and the LaTeX/Sweave source beside it, if any
 * ({@code companion} is null when there is none).
 */
public record SourceFile(String path, SourceKind kind, long sizeBytes, String paperId, String companion)
    implements Serializable {}
