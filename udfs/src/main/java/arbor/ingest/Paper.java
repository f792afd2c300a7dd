package arbor.ingest;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One paper as a reader produced it, before the stage stamps {@code ingested_at}.
 *
 * @param cleanParagraphs the body paragraphs as clean text: the ground truth evidence is cut
 *     from these, never from {@code noisyText}
 * @param sections the heading each clean paragraph sits under, one per paragraph ({@code ""}
 *     where the source has no headings); a nested section is its path from the outermost
 *     heading, joined by {@link #NESTED} ("Experiments ::: Datasets"); what structure-based
 *     questions are built from
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
    List<String> sections,
    String noisyText,
    String noisySource,
    double score,
    String contentHash) {

  public static final String NOISY_PDF = "pdf";
  public static final String NOISY_SIMULATED = "simulated";
  /** What separates the headings of a nested section's path, as QASPER writes them. */
  public static final String NESTING_MARK = ":::";
  /** The separator of a stored path: the mark with a space either side. */
  public static final String NESTED = " " + NESTING_MARK + " ";

  /** A section name as a source writes it, its nesting marks normalised to {@link #NESTED}. */
  public static String headingPath(String name) {
    return Arrays.stream(name.split(NESTING_MARK)).map(String::strip).filter(h -> !h.isEmpty())
        .collect(Collectors.joining(NESTED));
  }

  public Paper {
    if (sections.size() != cleanParagraphs.size()) {
      throw new IllegalArgumentException("paper " + paperId + ": " + sections.size() + " section heading(s) for "
          + cleanParagraphs.size() + " paragraph(s); give one heading (or \"\") per paragraph");
    }
  }

  /** One empty heading per paragraph, for sources without headings. */
  public static List<String> noSections(List<String> paragraphs) {
    return java.util.Collections.nCopies(paragraphs.size(), "");
  }
}
