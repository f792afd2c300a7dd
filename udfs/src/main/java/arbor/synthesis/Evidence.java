package arbor.synthesis;

/** One ground-truth span: a verbatim clean paragraph (or part of one) of a paper. */
public record Evidence(String paperId, String text) {}
