package arbor.rlm.policy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A scripted expert short enough for a student trained from scratch to imitate: two turns per
 * node, the same program for every question but for the heading words the question calls for
 * ({@code cues}, read off its phrasing). A multi-paper root scores each paper by how often the
 * question's rarer words occur in it (doubled when a heading carries a cue), delegates the best
 * papers that score near the best one to children with {@code rlm_query_batched} (the question as
 * each child's prompt) and submits the children's passages; a child (or a single-paper root) cuts
 * its paper into passages at short lines that close a sentence (a paragraph's last line) and keeps
 * the first ones under a cue's heading, or else the best past the title and abstract by a BM25-like
 * score over the question's words, whole, so every span is verbatim. The submission is the next
 * turn's {@code FINAL_VAR}.
 *
 * <p>The code reads the REPL's {@code question} when the runtime binds it
 * ({@code rlm.bind_question}); otherwise it first assigns the question as a literal. Its choices
 * are drawn from the turn's seed and written into the code as numbers, where a student sees them
 * and RL can learn which pay: how many papers a root delegates and how close to the best paper's
 * score they must come, the passage size and how many passages a reader keeps. Ranking runs in the REPL with string methods only (no regex, no
 * tokenising loops), so a tree costs a few interpreted milliseconds per paper.
 */
public final class PassageExpert implements Policy {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * @param maxPapers papers a root delegates at most (the children-per-node cap)
   * @param questionBound whether the REPL binds {@code question} (rlm.bind_question)
   */
  public record Settings(int maxPapers, boolean questionBound, long seed) {
    public Settings {
      if (maxPapers < 1) throw new IllegalArgumentException("maxPapers must be >= 1, got " + maxPapers);
    }
  }

  /** What one turn varies, drawn from its seed. */
  record Choices(int papers, int passageChars, int passages, int relevancePercent) {
    static Choices draw(Settings s, SplittableRandom r) {
      return new Choices(1 + r.nextInt(Math.min(4, s.maxPapers())), 200 * (1 + r.nextInt(3)), 1 + r.nextInt(3),
          60 + 20 * r.nextInt(3));
    }
  }

  private final Settings settings;

  public PassageExpert(Settings settings) {
    this.settings = settings;
  }

  @Override
  public Generation generate(PolicyCall call) throws PolicyException {
    if (call.turn() == 1) {
      return Generation.ofText("FINAL_VAR(evidence)");
    }
    if (call.turn() > 1) {
      throw new PolicyException("the passage expert has no turn " + call.turn() + " (it submits in turn 1)");
    }
    Choices c = Choices.draw(settings, new SplittableRandom(settings.seed() ^ call.seed()));
    String question = ExpertPolicy.questionOf(call.prompt());
    String bind = settings.questionBound() ? "" : "question = " + lit(question) + "\n";
    List<String> cues = QuestionKeywords.sectionCues(question);
    String code = call.multiPaper() ? root(c, cues) : reader(c, cues);
    return Generation.ofText("```repl\n" + bind + code + "```");
  }

  @Override
  public String complete(NodePath node, String prompt) {
    return "";
  }

  private static String root(Choices c, List<String> cues) {
    return """
        import math
        cues = %s
        words = {w.strip("?,.()") for w in question.lower().split() if len(w) > 4}
        low = {p: context[p].lower() for p in context}
        idf = {w: math.log(1 + len(low) / (1 + sum(w in t for t in low.values()))) for w in words}
        heads = {p: any(len(h) < 40 and "(" not in h and any(c in h for c in cues) for h in t.split("\\n")) for p, t in low.items()}
        score = {p: (1 + heads[p]) * sum(idf[w] * math.log(1 + t.count(w)) for w in words) for p, t in low.items()}
        top = [p for p in sorted(score, key=lambda p: -score[p])[:%d] if score[p] >= %s * max(score.values())]
        answers = rlm_query_batched([question] * len(top), [context[p] for p in top])
        evidence = [s for a in answers if isinstance(a, list) for s in a]
        print(top, len(evidence))
        """.formatted(tuple(cues), c.papers(), c.relevancePercent() / 100.0);
  }

  /**
   * Its first line differs from the root's, so a student commits to one program at its first
   * token. {@code cues} are the heading words of the part of a paper the question describes
   * ({@link QuestionKeywords#sectionCues}; none for other questions): the teacher reads them off
   * the question as a person would ("in its closing remarks" is the conclusions), and the code
   * reads the passages under the last heading line that carries one (the last, past a table of
   * contents). Without such a heading it ranks all passages by the question's words outside a
   * quoted title: the title names the paper, and its words fill the abstract, not the answer.
   */
  private static String reader(Choices c, List<String> cues) {
    return """
        cues = %s
        passages, cur, start = [], "", 0
        for line in context.split("\\n"):
            head = line.strip().lower()
            if len(head) < 40 and "(" not in head and any(c in head for c in cues) and (head[:1].isdigit() or len(head.split()) < 4):
                passages.append(cur.strip())
                cur, start = "", len(passages)
                continue
            cur += line + "\\n"
            if len(cur) > %d and line.rstrip().endswith(".") and (len(line) < 70 or len(cur) > %d):
                passages.append(cur.strip())
                cur = ""
        passages.append(cur.strip())
        import math
        asked = question.split('"')
        words = {w.strip("?,.()") for w in (asked[0] + asked[-1]).lower().split() if len(w) > 3} - set("what which does they their used were that this with from have there other paper authors".split())
        low = [p.lower() for p in passages]
        avg = 1 + sum(map(len, low)) / len(low)
        idf = {w: math.log(1 + len(low) / (1 + sum(w in t for t in low))) for w in words}
        score = [sum(idf[w] * t.count(w) / (t.count(w) + 0.3 + 0.9 * len(t) / avg) for w in words) for t in low]
        rank = range(start, len(low)) if start else sorted(range(len(low) > 1, len(low)), key=lambda i: -score[i])
        evidence = [passages[i] for i in rank if passages[i] and (start or score[i] > 0)][:%d]
        print(len(passages), start, [round(score[i], 1) for i in rank][:%d])
        """.formatted(tuple(cues), c.passageChars(), 3 * c.passageChars(), c.passages(), c.passages());
  }

  /** A Python tuple literal of strings. */
  private static String tuple(List<String> words) {
    return words.isEmpty() ? "()" : "(" + String.join(", ", words.stream().map(PassageExpert::lit).toList())
        + (words.size() == 1 ? ",)" : ")");
  }

  private static String lit(String value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
