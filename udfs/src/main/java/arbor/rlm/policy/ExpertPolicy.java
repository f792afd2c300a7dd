package arbor.rlm.policy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The scripted expert: follows the strategy prompt deterministically, writing the code a good
 * policy would write. A multi-paper root lists the papers, searches keyword variants, triages the
 * papers by weighted hits and delegates one child per relevant paper with
 * {@code rlm_query_batched}, then submits the flattened answers. A child (or a single-paper root)
 * searches keyword variants, ranks the sentences of the hits by the rarity of the question words
 * they hold, cuts the best with {@code extract_section}, and submits a turn later. It is the
 * embedded teacher for SFT, so its code is also what the model learns to write.
 *
 * <p>Its choices are drawn from the turn's seed around the settings: the order of equally ranked
 * keywords, how many it searches at the root and with which window, the relevance threshold and
 * how many papers it delegates, a child's window, keep fraction and spans per paper. So the
 * {@code G} samples of one query are different trees (a GRPO group with variance), and the same
 * seed always writes the same code.
 */
public final class ExpertPolicy implements Policy {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * @param window the search window of a child
   * @param keep sentences scoring at least this fraction of the best one are kept
   * @param maxSpans spans per paper at most
   * @param maxPapers papers a root delegates at most (the children-per-node cap)
   * @param abstractChars paragraphs starting this early (the abstract) count half when ranked
   */
  public record Settings(int window, double keep, int maxSpans, int maxPapers, int abstractChars, long seed) {
    public static Settings defaults() {
      return new Settings(400, 0.5, 3, 4, 1500, 17);
    }
  }

  private final Settings settings;

  public ExpertPolicy(Settings settings) {
    this.settings = settings;
  }

  @Override
  public Generation generate(PolicyCall call) throws PolicyException {
    String question = questionOf(call.prompt());
    long seed = settings.seed() ^ call.seed();
    List<String> cues = QuestionKeywords.sectionCues(question);
    List<String> keywords = QuestionKeywords.of(question, cues, seed);
    if (keywords.isEmpty()) {
      keywords = List.of(question.strip());
    }
    Choices choices = Choices.draw(settings, new SplittableRandom(seed));
    String text = call.multiPaper() ? root(call.turn(), question, keywords, choices)
        : reader(call.turn(), question, keywords, cues, choices);
    if (text == null) {
      throw new PolicyException("the expert has no turn " + call.turn() + " (it submits by turn 2)");
    }
    return Generation.ofText(text);
  }

  @Override
  public String complete(NodePath node, String prompt) {
    // The expert never needs a plain completion; answer plainly rather than fail the caller.
    return "";
  }

  /** A child's prompt is the question, a blank line, then the paper's id, title and abstract. */
  static String questionOf(String prompt) {
    int cut = prompt.indexOf("\n\nPaper ID:");
    return (cut < 0 ? prompt : prompt.substring(0, cut)).strip();
  }

  /**
   * What one turn of the expert varies, drawn from its seed around the settings.
   *
   * @param rootKeywords keywords a root searches over all papers in its first turn
   * @param rootWindow the window of those searches
   * @param relevance a paper is delegated when it scores at least this fraction of the best
   * @param papers papers delegated at most
   */
  record Choices(int rootKeywords, int rootWindow, double relevance, int papers, int window, double keep,
      int maxSpans) {
    static Choices draw(Settings s, SplittableRandom r) {
      return new Choices(2 + r.nextInt(3), 150 + 50 * r.nextInt(4), 0.10 + 0.05 * r.nextInt(4),
          Math.max(1, s.maxPapers() - r.nextInt(2)), (int) Math.round(s.window() * (0.75 + 0.25 * r.nextInt(3))),
          Math.max(0.05, s.keep() + 0.1 * (r.nextInt(3) - 1)), Math.max(1, s.maxSpans() + r.nextInt(3) - 1));
    }
  }

  private String root(int turn, String question, List<String> keywords, Choices choices) {
    return switch (turn) {
      case 0 -> """
          First I look at the papers and run a few searches over all of them.
          ```repl
          question = %s
          keywords = %s
          ids = list_papers(context)
          for kw in keywords[:%d]:
              search(context, kw, %d)
          ```""".formatted(lit(question), lit(keywords), choices.rootKeywords(), choices.rootWindow());
      case 1 -> """
          Now I rank the papers by how often the rarer question words occur, and delegate the relevant ones.
          ```repl
          import re, math
          low = {pid: re.sub(r"-\\s*\\n\\s*", "", context[pid].lower()) for pid in ids}
          qwords = {w for w in re.findall(r"[a-z0-9]+", " ".join(keywords).lower()) if len(w) > 2}
          df = {w: sum(1 for pid in ids if w in low[pid]) for w in qwords}
          def score(pid):
              return sum(low[pid].count(w) * math.log(1 + len(ids) / (1 + df[w])) for w in qwords)
          scores = {pid: score(pid) for pid in ids}
          best = max(scores.values()) if scores else 0
          relevant = [pid for pid in sorted(ids, key=lambda p: -scores[p]) if scores[pid] > 0 and scores[pid] >= %s * best][:%d]
          print({pid: round(scores[pid], 1) for pid in ids}, relevant)
          prompts = [question + "\\n\\n" + get_paper_abstract(context, pid) for pid in relevant]
          answers = rlm_query_batched(prompts, [context[pid] for pid in relevant]) if relevant else []
          evidence = [span for answer in answers if isinstance(answer, list) for span in answer]
          print(len(evidence), "spans from", len(relevant), "papers")
          ```""".formatted(String.format(Locale.ROOT, "%.2f", choices.relevance()), choices.papers());
      case 2 -> "The children's spans go in as they are.\nFINAL_VAR(evidence)";
      default -> null;
    };
  }

  private String reader(int turn, String question, List<String> keywords, List<String> cues,
      Choices choices) {
    return switch (turn) {
      case 0 -> """
          I search the paper for the question's words and their variants.
          ```repl
          question = %s
          keywords = %s
          hits = []
          for kw in keywords:
              for snippet in search(context, kw, %d):
                  if snippet not in hits:
                      hits.append(snippet)
          print(len(hits), "distinct snippets")
          ```""".formatted(lit(question), lit(keywords), choices.window());
      case 1 -> """
          I rank the paragraphs my hits fall in by the rarer question words they hold, then cut the best sentence of the best ones exactly.
          ```repl
          import re, math
          def tokens(text):
              return re.findall(r"[a-z0-9]+", re.sub(r"-\\s*\\n\\s*", "", text.lower()))
          paragraphs = [p for p in re.split(r"\\n\\s*\\n", context) if p.strip() and not p.lstrip().startswith("#")]
          qwords = set(tokens(" ".join(keywords))) | {w for w in tokens(question) if len(w) > 2}
          ptoks = [tokens(p) for p in paragraphs]
          psets = [set(t) for t in ptoks]
          avg = sum(len(t) for t in ptoks) / max(1, len(ptoks))
          idf = {}
          for w in qwords:
              df = sum(1 for s in psets if w in s)
              idf[w] = math.log(1 + (len(ptoks) - df + 0.5) / (df + 0.5))
          def bm25(toks):
              tf = {}
              for w in toks:
                  if w in qwords:
                      tf[w] = tf.get(w, 0) + 1
              return sum(idf[w] * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * len(toks) / avg)) for w, f in tf.items())
          starts, at = [], 0
          for p in paragraphs:
              at = context.find(p, at)
              starts.append(at)
              at += len(p)
          spans = [(context.find(h), context.find(h) + len(h)) for h in hits]
          candidates = [i for i, p in enumerate(paragraphs)
                        if any(0 <= a < starts[i] + len(p) and starts[i] < b for a, b in spans)]
          # The abstract matches every question's words; it rarely holds the evidence itself.
          score = {i: bm25(ptoks[i]) * (0.5 if starts[i] < %d else 1.0) for i in candidates}
          ranked = sorted(candidates, key=lambda i: -score[i])
          top = score[ranked[0]] if ranked else 0
          chosen = [i for i in ranked if top > 0 and score[i] >= %s * top][:%d]
          evidence = []
          for i in chosen:
              sentences = [s for s in re.split(r"(?<=[.!?])\\s+", paragraphs[i]) if len(s) >= 20] or [paragraphs[i]]
              best = max(sentences, key=lambda s: sum(idf[w] for w in set(tokens(s)) & qwords))
              lines = best.split("\\n")
              if len(lines) > 1 and len(lines[0]) < 60 and not lines[0].rstrip().endswith((".", ",", ";", ":")):
                  best = "\\n".join(lines[1:])  # a heading glued to the sentence is no evidence
              words = best.split()
              span = extract_section(paragraphs[i], " ".join(words[:5]), " ".join(words[-4:]))
              if span and span not in evidence:
                  evidence.append(span)
          """.formatted(settings.abstractChars(), String.format(Locale.ROOT, "%.2f", choices.keep()),
              choices.maxSpans()) + underHeading(cues) + "print(evidence)\n```";
      case 2 -> "These spans answer the question.\nFINAL_VAR(evidence)";
      default -> null;
    };
  }

  /**
   * For a question about a part of the paper (its heading words {@code cues}), code that puts the
   * first sentence under the last title line carrying one of them (numbered, or short and
   * capitalised; the last, past a table of contents) first among the evidence. None otherwise.
   */
  private static String underHeading(List<String> cues) {
    if (cues.isEmpty()) {
      return "";
    }
    return """
        cues = %s
        heading = None
        for m in re.finditer(r"(?m)^[ \\t]*([0-9]+(?:\\.[0-9]+)*\\.?[ \\t]+)?([A-Z][^\\n]{2,50})$", context):
            title = m.group(2).strip()
            titled = m.group(1) or len(title.split()) <= 6
            if titled and not title.endswith((".", ",", ";", ":")) and any(c in title.lower() for c in cues):
                heading = m
        if heading:
            start = heading.end() + 1
            stop = context.find(". ", start)
            span = context[start:min(len(context) if stop < 0 else stop + 1, start + 600)].strip()
            if len(span) >= 20 and span not in evidence:
                evidence.insert(0, span)
        """.formatted(lit(cues));
  }

  private static String lit(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
