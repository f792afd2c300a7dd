package arbor.conf;

import java.io.Serializable;

/**
 * The simulated PDF noise given to papers that have no PDF (see {@code docs/ingest.md}). Each
 * paper's noise is seeded by {@code seed} and its id, so re-ingesting reproduces it exactly.
 *
 * @param hyphenation probability that a word longer than the line end is split with a hyphen
 * @param ligatures probability that an {@code fi}/{@code fl}/{@code ff}/{@code ffi} becomes its
 *     ligature glyph
 * @param dropMath whether mathematical glyphs (Greek letters, operators) are lost, as PDF
 *     extraction of math fonts often does
 */
public record NoiseSettings(
    long seed,
    int lineWidth,
    double hyphenation,
    double ligatures,
    int linesPerPage,
    boolean dropMath) implements Serializable {}
