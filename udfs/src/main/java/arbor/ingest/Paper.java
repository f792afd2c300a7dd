package arbor.ingest;

import java.util.List;

/**
 * One paper as a reader produced it, before the stage stamps {@code ingested_at}.
 *
 * @param cleanParagraphs the body paragraphs as clean text: the ground truth evidence is cut
 *     from these, never from {@code noisyText}
 * @param noisyText what the policy sees: PDF-extracted text, or simulated PDF noise
 * @param noisySource {@code pdf} when {@code noisyText} came from a real PDF, else
 *     {@code simulated}
 * @param contentHash SHA-256 of the input bytes the paper came from; a change means a new
 *     version of the paper
 */
public record Paper(
    String paperId,
    String title,
    String abstractText,
    String source,
    String path,
    List<String> cleanParagraphs,
    String noisyText,
    String noisySource,
    double score,
    String contentHash) {

  public static final String NOISY_PDF = "pdf";
  public static final String NOISY_SIMULATED = "simulated";
}
