package arbor.rlm.policy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.SplittableRandom;

/**
 * A scripted expert short enough for a student trained from scratch to imitate: two turns per
 * node, the same program for every question. A multi-paper root scores each paper by how often
 * the question's rarer words occur in it, delegates the best papers to children with
 * {@code rlm_query_batched} (the question as each child's prompt) and submits the children's
 * passages; a child (or a single-paper root) cuts its paper into passages at line ends that close
 * a sentence, ranks them with a BM25-like score over the question's words and keeps the best
 * whole, so every span is verbatim. The submission is the next turn's {@code FINAL_VAR}.
 *
 * <p>The code reads the REPL's {@code question} when the runtime binds it
 * ({@code rlm.bind_question}); otherwise it first assigns the question as a literal. Its choices
 * are drawn from the turn's seed and written into the code as numbers, where a student sees them
 * and RL can learn which pay: how many papers a root delegates, the passage size and how many
 * passages a reader keeps. Ranking runs in the REPL with string methods only (no regex, no
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
  record Choices(int papers, int passageChars, int passages) {
    static Choices draw(Settings s, SplittableRandom r) {
      return new Choices(1 + r.nextInt(Math.min(4, s.maxPapers())), 300 * (1 + r.nextInt(3)), 1 + r.nextInt(3));
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
    String bind = settings.questionBound() ? "" : "question = " + lit(ExpertPolicy.questionOf(call.prompt())) + "\n";
    String code = call.multiPaper() ? root(c) : reader(c);
    return Generation.ofText("```repl\n" + bind + code + "```");
  }

  @Override
  public String complete(NodePath node, String prompt) {
    return "";
  }

  private static String root(Choices c) {
    return """
        import math
        words = {w.strip("?,.()") for w in question.lower().split() if len(w) > 4}
        low = {p: context[p].lower() for p in context}
        idf = {w: math.log(1 + len(low) / (1 + sum(w in t for t in low.values()))) for w in words}
        score = {p: sum(idf[w] * math.log(1 + t.count(w)) for w in words) for p, t in low.items()}
        top = sorted(score, key=lambda p: -score[p])[:%d]
        answers = rlm_query_batched([question] * len(top), [context[p] for p in top])
        evidence = [s for a in answers if isinstance(a, list) for s in a]
        print(top, len(evidence))
        """.formatted(c.papers());
  }

  /** Its first line differs from the root's, so a student commits to one program at its first token. */
  private static String reader(Choices c) {
    return """
        passages, cur = [], ""
        for line in context.split("\\n"):
            cur += line + "\\n"
            if len(cur) > %d and line.rstrip().endswith("."):
                passages.append(cur.strip())
                cur = ""
        import math
        words = {w.strip("?,.()") for w in question.lower().split() if len(w) > 4}
        low = [p.lower() for p in passages]
        idf = {w: math.log(1 + len(low) / (1 + sum(w in t for t in low))) for w in words}
        score = [sum(idf[w] * t.count(w) / (t.count(w) + 1.2) for w in words) for t in low]
        top = sorted(range(len(low)), key=lambda i: -score[i])[:%d]
        evidence = [passages[i] for i in top if score[i] > 0]
        print(len(passages), [round(score[i], 1) for i in top])
        """.formatted(c.passageChars(), c.passages());
  }

  private static String lit(String value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
