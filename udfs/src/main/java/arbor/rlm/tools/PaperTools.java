package arbor.rlm.tools;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;

/**
 * The paper tools of method.md section 5, in Java: pure functions over the node's context (a map
 * {@code paper_id -> text} or one paper's text). Each returns what the tool prints and what it
 * returns to Python. Every span returned is a substring of the text it came from.
 */
public final class PaperTools {
  /** The id under which a context that is one plain string is listed. */
  public static final String SINGLE_PAPER_ID = "paper";

  private PaperTools() {}

  /** What a tool prints to the cell's stdout, and the value it returns to Python. */
  public record Output<T>(String printed, T value) {}

  /** A half-open character interval of one paper's text. */
  record Span(int start, int end) {}

  public static Output<List<String>> listPapers(Map<String, String> papers) {
    StringBuilder out = new StringBuilder();
    List<String> ids = new ArrayList<>();
    for (PaperText paper : parse(papers)) {
      ids.add(paper.id());
      out.append("Paper ID: ").append(paper.id()).append('\n')
          .append("Title: ").append(paper.title()).append('\n')
          .append("Abstract: ").append(paper.abstractText()).append("\n\n");
    }
    out.append(ids.size()).append(ids.size() == 1 ? " paper" : " papers").append('\n');
    return new Output<>(out.toString(), ids);
  }

  public static Output<String> paperAbstract(Map<String, String> papers, String paperId) {
    String text = papers.get(paperId);
    if (text == null) {
      String msg = "Error: unknown paper id '" + paperId + "'; the ids are " + papers.keySet();
      return new Output<>("", msg);
    }
    PaperText paper = PaperText.parse(paperId, text);
    return new Output<>("", "Paper ID: " + paper.id() + "\nTitle: " + paper.title()
        + "\nAbstract: " + paper.abstractText());
  }

  /**
   * Case-insensitive, noise-tolerant literal search. Each hit becomes a window around it, widened
   * to sentence boundaries; overlapping windows of one paper are merged.
   */
  public static Output<List<String>> search(
      Map<String, String> papers, String keyword, int window, boolean bidirectional) {
    if (window < 1) {
      throw new IllegalArgumentException("window must be at least 1, got " + window);
    }
    TolerantPattern pattern = TolerantPattern.of(keyword);
    StringBuilder out = new StringBuilder();
    List<String> snippets = new ArrayList<>();
    int hitPapers = 0;
    for (Map.Entry<String, String> paper : papers.entrySet()) {
      String text = paper.getValue();
      List<Span> spans = hits(text, pattern, window, bidirectional);
      if (spans.isEmpty()) {
        continue;
      }
      hitPapers++;
      out.append("=== ").append(paper.getKey()).append(": ").append(PaperText.titleOf(text)).append(" (")
          .append(spans.size()).append(spans.size() == 1 ? " snippet" : " snippets")
          .append(") ===\n");
      for (Span span : spans) {
        String snippet = text.substring(span.start(), span.end());
        out.append('[').append(snippets.size()).append("] ").append(snippet).append("\n\n");
        snippets.add(snippet);
      }
    }
    if (snippets.isEmpty()) {
      out.append("No hits for '").append(pattern.phrase()).append("' in ").append(papers.size())
          .append(papers.size() == 1 ? " paper" : " papers").append(".\n");
    } else {
      out.append(snippets.size()).append(snippets.size() == 1 ? " snippet from " : " snippets from ").append(hitPapers)
          .append(hitPapers == 1 ? " paper" : " papers").append(" (numbers are list indexes).\n");
    }
    return new Output<>(out.toString(), snippets);
  }

  /** {@link #search(Map, String, int, boolean)} over one paper's text. */
  public static Output<List<String>> search(String text, String keyword, int window, boolean bidirectional) {
    return search(singlePaper(text), keyword, window, bidirectional);
  }

  static List<Span> hits(String text, TolerantPattern pattern, int window, boolean bidirectional) {
    List<Span> spans = new ArrayList<>();
    for (int[] m : pattern.findAll(text)) {
      int start = bidirectional ? m[0] - window / 2 : m[0];
      int end = bidirectional ? m[1] + window / 2 : m[0] + window;
      start = Math.max(0, start);
      end = Math.min(text.length(), Math.max(end, m[1]));
      Span widened = trim(text, new Span(widenLeft(text, start, window), widenRight(text, end, window)));
      Span last = spans.isEmpty() ? null : spans.getLast();
      if (last != null && widened.start() <= last.end()) {
        spans.set(spans.size() - 1, new Span(last.start(), Math.max(last.end(), widened.end())));
      } else {
        spans.add(widened);
      }
    }
    return spans;
  }

  private static boolean isBoundary(char ch) {
    return ch == '.' || ch == '!' || ch == '?' || ch == '\n';
  }

  /** Moves the start left to just after a sentence boundary, at most {@code limit} characters. */
  static int widenLeft(String text, int start, int limit) {
    for (int i = start; i >= Math.max(0, start - limit); i--) {
      if (i == 0 || isBoundary(text.charAt(i - 1))) {
        return i;
      }
    }
    return start;
  }

  /** Moves the end right to just after a sentence boundary, at most {@code limit} characters. */
  static int widenRight(String text, int end, int limit) {
    for (int i = end; i <= Math.min(text.length(), end + limit); i++) {
      if (i == text.length() || (i > 0 && isBoundary(text.charAt(i - 1)))) {
        return i;
      }
    }
    return end;
  }

  private static Span trim(String text, Span span) {
    int s = span.start();
    int e = span.end();
    while (s < e && Character.isWhitespace(text.charAt(s))) {
      s++;
    }
    while (e > s && Character.isWhitespace(text.charAt(e - 1))) {
      e--;
    }
    return new Span(s, e);
  }

  /**
   * The span of {@code snippet} from the start of {@code startPhrase} through the end of
   * {@code endPhrase}. A missing start phrase gives {@code ""} (never a span padded from the
   * snippet's start); a missing end phrase runs the span to the snippet's end. Both say so.
   */
  public static Output<String> extractSection(String snippet, String startPhrase, String endPhrase) {
    Matcher start = TolerantPattern.of(startPhrase).matcher(snippet);
    if (!start.find()) {
      return new Output<>("extract_section: start phrase '" + startPhrase.strip()
          + "' not found in the snippet; returned \"\".\n", "");
    }
    Matcher end = TolerantPattern.of(endPhrase).matcher(snippet);
    int from = start.start();
    while (end.find(from)) {
      if (end.end() >= start.end()) {
        return new Output<>("", snippet.substring(start.start(), end.end()));
      }
      from = end.start() + 1;
    }
    return new Output<>("extract_section: end phrase '" + endPhrase.strip()
        + "' not found after the start phrase; the span runs to the end of the snippet.\n",
        snippet.substring(start.start()));
  }

  private static List<PaperText> parse(Map<String, String> papers) {
    List<PaperText> parsed = new ArrayList<>(papers.size());
    papers.forEach((id, text) -> parsed.add(PaperText.parse(id, text)));
    return parsed;
  }

  /** A one-paper context as a map, so that every tool takes the same shape. */
  public static Map<String, String> singlePaper(String text) {
    Map<String, String> map = new LinkedHashMap<>();
    map.put(SINGLE_PAPER_ID, text);
    return map;
  }
}
