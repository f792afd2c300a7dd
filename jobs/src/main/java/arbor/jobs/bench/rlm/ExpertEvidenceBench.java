package arbor.jobs.bench.rlm;

import arbor.rlm.NodeStatus;
import arbor.rlm.Prompts;
import arbor.rlm.RlmContext;
import arbor.rlm.RlmLimits;
import arbor.rlm.TreeRunner;
import arbor.rlm.policy.ExpertPolicy;
import arbor.rlm.sandbox.Sandbox;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The scripted expert against lexical top-k retrieval on QASPER, same questions, same run:
 * paragraph-level evidence F1 (best annotator, mean over answerable questions) of the expert's
 * single-paper trees, and of Lucene BM25's top 1, 2 and 3 paragraphs under each of its analyses
 * (the floor is the better analysis at each k, over the whole run: a choice a user could make, not
 * a per-question oracle).
 */
public final class ExpertEvidenceBench {

  private ExpertEvidenceBench() {}

  /**
   * @param expertF1 mean evidence F1 of the expert
   * @param bm25F1 mean evidence F1 of BM25 top 1, 2 and 3, the better analysis at each
   * @param bm25F1ByAnalysis the same per analysis
   * @param notVerbatim expert spans that are not substrings of their paper (must be 0)
   * @param unfinished trees whose root ended without a final answer
   */
  public record Result(int questions, double expertF1, double[] bm25F1, Map<Bm25Paragraphs.Analysis, double[]> bm25F1ByAnalysis,
      int notVerbatim, int unfinished, double expertSecondsPerQuestion) {
    public double bestBm25F1() {
      return Math.max(bm25F1[0], Math.max(bm25F1[1], bm25F1[2]));
    }
  }

  /** The answerable questions whose paper text is present, shuffled with {@code seed}, at most {@code limit}. */
  public static List<QasperQuestion> sample(Path qasperDir, int limit, long seed) throws IOException {
    Path file = arbor.jobs.bench.rlm.QasperDir.require(qasperDir).resolve("questions_train.json");
    List<QasperQuestion> all = new ArrayList<>(QasperQuestion.readAnswerable(file));
    all.removeIf(q -> !Files.exists(qasperDir.resolve("papers").resolve(q.paperId() + ".txt")));
    Collections.shuffle(all, new Random(seed));
    return all.subList(0, Math.min(limit, all.size()));
  }

  public static Result run(Path qasperDir, List<QasperQuestion> questions, Sandbox sandbox, Prompts prompts,
      RlmLimits limits, ExpertPolicy.Settings settings, int concurrency, PrintStream log) throws IOException {
    TreeRunner runner = new TreeRunner(sandbox, new ExpertPolicy(settings), prompts, limits);
    double[] expert = new double[questions.size()];
    Bm25Paragraphs.Analysis[] analyses = Bm25Paragraphs.Analysis.values();
    double[][][] bm25 = new double[analyses.length][3][questions.size()];
    AtomicInteger notVerbatim = new AtomicInteger();
    AtomicInteger unfinished = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    Semaphore slots = new Semaphore(concurrency);
    List<Thread> threads = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < questions.size(); i++) {
      QasperQuestion q = questions.get(i);
      String paper = Files.readString(qasperDir.resolve("papers").resolve(q.paperId() + ".txt"));
      List<String> paragraphs = ParagraphEvidence.paragraphs(paper);
      for (int a = 0; a < analyses.length; a++) {
        try (Bm25Paragraphs bm = new Bm25Paragraphs(paragraphs, analyses[a])) {
          List<Integer> top = bm.top(q.question(), 3);
          for (int k = 1; k <= 3; k++) {
            List<String> picked = top.subList(0, Math.min(k, top.size())).stream().map(paragraphs::get).toList();
            bm25[a][k - 1][i] = ParagraphEvidence.bestF1(ParagraphEvidence.paragraphsOf(picked, paragraphs), q.evidence());
          }
        }
      }
      int slot = i;
      slots.acquireUninterruptibly();
      threads.add(Thread.ofVirtual().start(() -> {
        try {
          TreeRunner.TreeResult tree = runner.run(q.questionId(), q.question(), new RlmContext.Single(paper));
          List<String> spans = FinalSpans.of(tree.root().finalAnswerJson());
          if (tree.root().status() != NodeStatus.FINAL) {
            unfinished.incrementAndGet();
          }
          spans.stream().filter(s -> !paper.contains(s)).forEach(s -> notVerbatim.incrementAndGet());
          expert[slot] = ParagraphEvidence.bestF1(ParagraphEvidence.paragraphsOf(spans, paragraphs), q.evidence());
          int n = done.incrementAndGet();
          if (log != null && (n % 25 == 0 || n == questions.size())) {
            log.printf("  %d/%d questions%n", n, questions.size());
          }
        } finally {
          slots.release();
        }
      }));
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    Map<Bm25Paragraphs.Analysis, double[]> byAnalysis = new EnumMap<>(Bm25Paragraphs.Analysis.class);
    double[] best = new double[3];
    for (int a = 0; a < analyses.length; a++) {
      double[] f1 = {mean(bm25[a][0]), mean(bm25[a][1]), mean(bm25[a][2])};
      byAnalysis.put(analyses[a], f1);
      for (int k = 0; k < 3; k++) best[k] = Math.max(best[k], f1[k]);
    }
    return new Result(questions.size(), mean(expert), best, byAnalysis, notVerbatim.get(), unfinished.get(),
        seconds / Math.max(1, questions.size()) * concurrency);
  }

  private static double mean(double[] xs) {
    double s = 0;
    for (double x : xs) {
      s += x;
    }
    return xs.length == 0 ? 0 : s / xs.length;
  }
}
