package arbor.rlm.policy;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * Search keywords for a question, the way the strategy prompt asks for them: the content words and
 * adjacent pairs of them (the phrases a paper would use), with singular/plural variants.
 */
public final class QuestionKeywords {
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
    Set<String> out = new LinkedHashSet<>(phrases);
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
}
