package arbor.conf;

import java.io.Serializable;

/**
 * The offline generator (no model): questions about what sections of the papers are for.
 *
 * @param maxSectionParagraphs a paper's section of one role longer than this many paragraphs is
 *     too much to be one question's evidence, and is not asked about
 * @param maxEvidence at most this many paragraphs, over all papers, are one question's evidence
 */
public record OfflineSettings(int maxSectionParagraphs, int maxEvidence) implements Serializable {}
