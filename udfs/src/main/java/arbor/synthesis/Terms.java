package arbor.synthesis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The terms of a group's papers and where each occurs: acronyms and names with inner capitals
 * ({@code BERT}, {@code SQuAD}) and two-word phrases of content words ({@code semantic parsing}).
 * A term's occurrences are found by the same tokenizer that proposes it, so "every paragraph
 * that mentions the term" is exact, which makes offline evidence complete by construction.
 */
final class Terms {
  private Terms() {}

  /** Where a term occurs: per paper (in group order), the paragraph indices and the count. */
  record Term(String text, boolean acronym, Map<String, List<Integer>> paragraphs, Map<String, Integer> counts) {
    int papers() {
      return paragraphs.size();
    }
  }

  private static final Pattern CLAUSE = Pattern.compile("[.,;:!?()\\[\\]{}\"\u201c\u201d=/]|\\s[-\u2013\u2014]\\s");
  private static final Pattern TOKEN = Pattern.compile("[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*");
  private static final Pattern WORD = Pattern.compile("[a-z]+(?:-[a-z]+)*");
  private static final Pattern PLACEHOLDER = Pattern.compile(".*(REF|FORM|SELECTED|FLOAT).*");
  private static final Pattern REFERENCE = Pattern.compile("\\\\newblock|\\bProceedings of\\b|\\bIn Proc\\.");
  private static final Pattern ROMAN = Pattern.compile("[IVXLCDM]+");

  // Function words and the vocabulary every paper uses: phrases made of them are not topics.
  private static final Set<String> STOP = Set.copyOf(List.of(
      "the", "and", "for", "are", "was", "were", "with", "that", "this", "these", "those", "from", "into", "onto",
      "which", "while", "where", "when", "what", "who", "whom", "whose", "their", "there", "then", "than", "them",
      "they", "our", "ours", "its", "has", "have", "had", "not", "but", "can", "could", "would", "should", "will",
      "may", "might", "must", "also", "been", "being", "such", "each", "both", "all", "any", "some", "many", "much",
      "more", "most", "less", "least", "other", "another", "same", "only", "very", "well", "over", "under", "between",
      "about", "above", "below", "after", "before", "through", "during", "without", "within", "upon", "via", "per",
      "does", "did", "done", "how", "why", "here", "however", "thus", "therefore", "hence", "since", "because",
      "although", "though", "whether", "either", "neither", "one", "two", "three", "four", "five", "first", "second",
      "third", "last", "next", "new", "paper", "papers", "work", "works", "section", "sections", "table", "tables",
      "figure", "figures", "fig", "result", "results", "example", "examples", "case", "cases", "use", "used", "uses",
      "using", "based", "show", "shows", "shown", "showed", "see", "seen", "following", "follows", "proposed",
      "propose", "proposes", "present", "presented", "presents", "different", "given", "number", "numbers", "set",
      "sets", "able", "due", "respectively", "previous", "recent", "recently", "existing", "several", "various",
      "large", "small", "high", "low", "higher", "lower", "best", "better", "good", "similar", "main", "important",
      "significant", "significantly", "total", "final", "overall", "further", "current", "specific", "general",
      "approach", "approaches", "method", "methods", "way", "ways", "order", "part", "parts", "term", "terms",
      "type", "types", "time", "times", "et", "al", "etc", "our", "we", "i.e", "e.g", "given", "make", "makes",
      "made", "take", "takes", "taken", "obtain", "obtained", "achieve", "achieves", "achieved", "note", "let",
      "consider", "considered", "describe", "described", "discuss", "discussed", "study", "studies", "studied",
      "task", "tasks", "experiment", "experiments", "experimental", "value", "values", "data", "per", "like",
      "need", "needs", "non", "top", "end", "way", "lot", "level", "levels", "effect", "effects", "kind", "kinds"));

  /** Every term proposed at least {@code minCount} times by some paper of the group. */
  static List<Term> of(GroupContext group, int minCount) {
    // paper -> term -> (paragraph -> count)
    Map<String, Map<String, TreeMap<Integer, Integer>>> seen = new LinkedHashMap<>();
    Map<String, Boolean> acronym = new HashMap<>();
    Set<String> proposed = new java.util.HashSet<>();
    for (GroupContext.Member m : group.members()) {
      Map<String, TreeMap<Integer, Integer>> paperTerms = seen.computeIfAbsent(m.paperId(), k -> new HashMap<>());
      List<String> paragraphs = m.cleanParagraphs();
      for (int j = 0; j < paragraphs.size(); j++) {
        for (Occurrence o : occurrences(paragraphs.get(j))) {
          paperTerms.computeIfAbsent(o.text(), k -> new TreeMap<>()).merge(j, 1, Integer::sum);
          acronym.putIfAbsent(o.text(), o.acronym());
          if (o.proposed()) proposed.add(o.text());
        }
      }
    }
    Map<String, Term> out = new TreeMap<>();
    for (var paper : seen.entrySet()) {
      for (var t : paper.getValue().entrySet()) {
        int count = t.getValue().values().stream().mapToInt(Integer::intValue).sum();
        if (count >= minCount && proposed.contains(t.getKey()) && !out.containsKey(t.getKey())) out.put(t.getKey(), collect(t.getKey(), acronym.get(t.getKey()), seen));
      }
    }
    return withoutShorterForms(new ArrayList<>(out.values()));
  }

  /** Drops a phrase that only ever occurs inside a longer one ("language processing" in "natural language processing"). */
  private static List<Term> withoutShorterForms(List<Term> terms) {
    List<Term> kept = new ArrayList<>();
    for (Term t : terms) {
      boolean covered = !t.acronym() && terms.stream().anyMatch(o -> o != t && !o.acronym()
          && (" " + o.text() + " ").contains(" " + t.text() + " ") && o.counts().equals(t.counts()));
      if (!covered) kept.add(t);
    }
    return kept;
  }

  private static Term collect(String text, boolean acronym, Map<String, Map<String, TreeMap<Integer, Integer>>> seen) {
    Map<String, List<Integer>> paragraphs = new LinkedHashMap<>();
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (var paper : seen.entrySet()) {
      TreeMap<Integer, Integer> where = paper.getValue().get(text);
      if (where == null) continue;
      paragraphs.put(paper.getKey(), List.copyOf(where.keySet()));
      counts.put(paper.getKey(), where.values().stream().mapToInt(Integer::intValue).sum());
    }
    return new Term(text, acronym, paragraphs, counts);
  }

  /**
   * Every occurrence of a term in one paragraph, in order: acronyms, and the phrases of two and
   * three words inside each maximal run of content words. Only phrases that end a run are
   * proposed as terms, so a term ends on its head noun ("convolutional neural networks", never
   * "convolutional neural"). Bibliography entries yield nothing.
   */
  static List<Occurrence> occurrences(String paragraph) {
    List<Occurrence> out = new ArrayList<>();
    if (REFERENCE.matcher(paragraph).find()) return out;
    for (String clause : CLAUSE.split(paragraph)) {
      Matcher m = TOKEN.matcher(clause);
      List<String> run = new ArrayList<>();
      int previousEnd = -1;
      while (m.find()) {
        String token = m.group();
        for (String part : token.split("-")) {
          if (isAcronym(part)) out.add(new Occurrence(part, true, true));
        }
        String word = contentWord(token);
        boolean adjacent = previousEnd >= 0 && clause.substring(previousEnd, m.start()).isBlank();
        if (word == null || !adjacent) endRun(run, out);
        if (word != null) run.add(word);
        previousEnd = m.end();
      }
      endRun(run, out);
    }
    return out;
  }

  /** Every two- and three-word phrase of the run is a mention; those ending the run are also proposals. */
  private static void endRun(List<String> run, List<Occurrence> out) {
    int n = run.size();
    for (int end = 2; end <= n; end++) {
      out.add(new Occurrence(run.get(end - 2) + " " + run.get(end - 1), false, end == n));
      if (end >= 3) out.add(new Occurrence(run.get(end - 3) + " " + run.get(end - 2) + " " + run.get(end - 1), false, end == n));
    }
    run.clear();
  }

  /**
   * One occurrence of a term. {@code proposed}: it can become a question's term (acronyms
   * always; phrases only where they end a run of content words, so on their head noun); every
   * occurrence counts as a mention, which keeps the evidence complete.
   */
  record Occurrence(String text, boolean acronym, boolean proposed) {}

  private static boolean isAcronym(String part) {
    if (part.length() < 2 || part.length() > 20) return false;
    long capitals = part.chars().filter(Character::isUpperCase).count();
    return capitals >= 2 && !PLACEHOLDER.matcher(part).matches() && !ROMAN.matcher(part).matches();
  }

  /** The lower-case word when {@code token} can be part of a phrase term, else null. */
  private static String contentWord(String token) {
    // A capital after the first letter marks an acronym or name: it is a term of its own.
    if (token.length() < 3 || token.substring(1).chars().anyMatch(Character::isUpperCase)) return null;
    String word = token.toLowerCase(Locale.ROOT);
    if (!WORD.matcher(word).matches() || STOP.contains(word) || word.endsWith("ly")) return null;
    return word;
  }
}
