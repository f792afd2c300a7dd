package arbor.ingest;

import java.util.List;

/**
 * A question that came with a source (QASPER's {@code qas}). {@code evidence} holds one list of
 * evidence paragraphs per annotator, because QASPER's evidence F1 takes the best annotator.
 */
public record SourceQuestion(
    String paperId,
    String questionId,
    String question,
    List<List<String>> evidence,
    boolean answerable,
    String path) {}
