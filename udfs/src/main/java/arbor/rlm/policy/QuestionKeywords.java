package arbor.rlm.policy;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * Search keywords for a question, the way the strategy prompt asks for them: the content words and
 * adjacent pairs of them (the phrases a paper would use), with singular/plural variants. A question
 * that describes a part of a paper in other words ("the collections of examples they learn from")
 * first gets the words papers title that part with ("data", "dataset", "corpus"): what a reader
 * who knows how papers are laid out would search for.
 */
public final class QuestionKeywords {
  /** Ways a question describes a part of a paper, and the words that part's heading would use. */
  private record Cue(List<String> descriptions, List<String> headingWords) {}

  private static final List<Cue> SECTION_CUES = List.of(
      new Cue(List.of("collections of examples", "learn from or test on", "how were they gathered"),
          List.of("dataset", "data", "corpus")),
      new Cue(List.of("competing systems", "measure its own", "measure their own"), List.of("baseline", "comparison")),
      new Cue(List.of("yardstick", "score the quality"), List.of("metric", "evaluation")),
      new Cue(List.of("closing remarks", "in closing"), List.of("conclusion", "summary")),
      new Cue(List.of("go wrong", "individual outputs", "single outputs"), List.of("error analysis", "errors")),
      new Cue(List.of("taken away one at a time", "parts of the system are taken away"), List.of("ablation")),
      new Cue(List.of("people rate", "their ratings"), List.of("human evaluation", "annotators")),
      new Cue(List.of("configured and run"), List.of("implementation", "setup", "hyperparameters", "computational details")),
      new Cue(List.of("cleaned up", "prepared before modelling"), List.of("preprocessing", "tokenization")),
      new Cue(List.of("unsolved", "plan to do next"), List.of("limitations", "future work")),
      new Cue(List.of("earlier lines of research", "set itself apart"), List.of("related work", "previous work")),
      new Cue(List.of("put to work", "concrete problem"), List.of("example", "illustration", "usage")),
      new Cue(List.of("set out to address", "why does it matter", "why it matters"), List.of("introduction", "motivation")));

  private static final Set<String> STOP = Set.copyOf(java.util.Arrays.asList(
      "a", "about", "above", "across", "after", "all", "also", "among", "an", "and", "any", "are",
      "as", "at", "based", "be", "been", "being", "between", "both", "but", "by", "can", "could",
      "did", "do", "does", "done", "during", "each", "either", "for", "from", "get", "give", "given",
      "had", "has", "have", "how", "if", "in", "into", "is", "it", "its", "kind", "kinds", "many",
      "may", "more", "most", "much", "no", "not", "of", "on", "or", "other", "others", "over",
      "paper", "papers", "proposed", "same", "should", "so", "some", "such", "than", "that", "the",
      "their", "them", "then", "there", "these", "they", "this", "those", "through", "to", "type",
      "types", "use", "used", "uses", "using", "via", "was", "were", "what", "when", "where",
      "whether", "which", "while", "who", "whom", "why", "will", "with", "within", "without",
      "work", "would", "authors", "author", "approach", "method", "methods", "model", "models",
      "we", "our", "you", "your", "yes", "compared", "performance", "results"));

  private QuestionKeywords() {}

  /**
   * Keywords for {@code question}, most specific first: phrases of two content words, then
   * single words, then their singular/plural variants. The seed reorders words of equal rank, so
   * that samples of one question differ while each stays reproducible.
   */
  public static List<String> of(String question, long seed) {
    return of(question, sectionCues(question), seed);
  }

  /** {@link #of(String, long)} for a question whose {@link #sectionCues} are already known. */
  static List<String> of(String question, List<String> cues, long seed) {
    List<String> words = new ArrayList<>();
    List<String> tokens = new ArrayList<>();
    for (String raw : question.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}-]+")) {
      String w = raw.replaceAll("^-+|-+$", "");
      tokens.add(w);
      if (w.length() >= 3 && !STOP.contains(w)) {
        words.add(w);
      }
    }
    Set<String> phrases = new LinkedHashSet<>();
    for (int i = 0; i + 1 < tokens.size(); i++) {
      String a = tokens.get(i);
      String b = tokens.get(i + 1);
      if (a.length() >= 3 && b.length() >= 3 && !STOP.contains(a) && !STOP.contains(b)) {
        phrases.add(a + " " + b);
      }
    }
    List<String> singles = new ArrayList<>(new LinkedHashSet<>(words));
    // Longer words are rarer and say more; ties are broken by the seed.
    java.util.Collections.shuffle(singles, new Random(seed));
    singles.sort((x, y) -> Integer.compare(y.length(), x.length()));
    Set<String> out = new LinkedHashSet<>(cues);
    out.addAll(phrases);
    out.addAll(singles);
    for (String w : singles) {
      String variant = w.endsWith("ies") ? w.substring(0, w.length() - 3) + "y"
          : w.endsWith("s") && !w.endsWith("ss") ? w.substring(0, w.length() - 1)
          : w + "s";
      if (variant.length() >= 3) {
        out.add(variant);
      }
    }
    return List.copyOf(out);
  }

  /** The heading words of the part of a paper the question describes, if it describes one. */
  static List<String> sectionCues(String question) {
    String q = question.toLowerCase(Locale.ROOT);
    List<String> out = new ArrayList<>();
    for (Cue cue : SECTION_CUES) {
      if (cue.descriptions().stream().anyMatch(q::contains)) out.addAll(cue.headingWords());
    }
    return out;
  }
}
