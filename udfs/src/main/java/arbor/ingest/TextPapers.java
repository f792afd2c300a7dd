package arbor.ingest;

import java.util.List;

/**
 * Makes papers from sources that come as text (markdown, QASPER, JSON Lines): they have no PDF,
 * so their noisy text is simulated, and their score is the default unless the source has one.
 */
public record TextPapers(PdfNoise noise, double defaultScore) {

  Paper paper(String source, String path, String id, String title, String abstractText, List<String> paragraphs,
      List<String> sections, Double score, String contentHash) {
    return new Paper(id, title, abstractText, source, path, paragraphs, sections, noise.apply(id, title, abstractText, paragraphs, sections),
        Paper.NOISY_SIMULATED, score == null ? defaultScore : score, contentHash);
  }
}
