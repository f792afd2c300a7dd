package arbor.conf;

import java.io.Serializable;

/**
 * The offline generator (no model): questions about terms that some papers of a group share.
 *
 * @param minTermCount a term must occur this often in a paper's clean paragraphs to count as
 *     one of its terms
 * @param evidencePerPaper at most this many paragraphs of one paper are evidence
 */
public record OfflineSettings(int minTermCount, int evidencePerPaper) implements Serializable {}
