package arbor.tables;

/**
 * {@code papers}: one row per paper, written by ingest, read by synthesis, the rollout stage and
 * the judge. Key: paper_id. The struct of the rows ingest parses is {@code IngestRows.PAPER_STRUCT};
 * the stage adds {@link #INGESTED_AT}.
 */
public final class Papers {
  private Papers() {}

  public static final String PAPER_ID = "paper_id";
  public static final String TITLE = "title";
  public static final String ABSTRACT = "abstract";
  /** The kind of input the paper was read from. */
  public static final String SOURCE = "source";
  public static final String PATH = "path";
  /** The paper's paragraphs as clean text: where evidence is cut from. */
  public static final String CLEAN_PARAGRAPHS = "clean_paragraphs";
  /** The heading path of each clean paragraph. */
  public static final String SECTIONS = "sections";
  /** The text an RLM sees: a PDF's extracted text, or clean text laid out as one. */
  public static final String NOISY_TEXT = "noisy_text";
  /** {@code pdf} or {@code simulated}: where {@link #NOISY_TEXT} came from. */
  public static final String NOISY_SOURCE = "noisy_source";
  public static final String SCORE = "score";
  public static final String CONTENT_HASH = "content_hash";
  public static final String INGESTED_AT = "ingested_at";
}
