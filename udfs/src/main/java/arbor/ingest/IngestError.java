package arbor.ingest;

/**
 * An input that could not be ingested: the reader that tried ({@code source}), where it was
 * ({@code path}, with {@code #L<n>} for one line of a JSON Lines file) and why.
 */
public record IngestError(String source, String path, String reason) {}
