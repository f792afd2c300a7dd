package arbor.jobs.bench;

import arbor.jobs.bench.rlm.QasperDir;
import arbor.rlm.sandbox.SandboxLimits;
import arbor.rlm.RlmLimits;
import arbor.ingest.PdfNoise;
import arbor.jobs.cli.Args;
import arbor.judge.AlignedCase;
import arbor.judge.EmbeddedJudge;
import arbor.judge.FinalAnswer;
import arbor.judge.JudgeCase;
import arbor.judge.Verdict;
import arbor.rlm.Prompts;
import arbor.rlm.RlmContext;
import arbor.rlm.TreeRunner;
import arbor.jobs.bench.rlm.Bm25Paragraphs;
import arbor.jobs.bench.rlm.ExpertEvidenceBench;
import arbor.jobs.bench.rlm.ParagraphEvidence;
import arbor.jobs.bench.rlm.QasperQuestion;
import arbor.rlm.policy.ExpertPolicy;
import arbor.rlm.sandbox.InProcessSandbox;
import arbor.synthesis.Evidence;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Does the embedded judge rank answers the way QASPER's annotated evidence does? Over answerable
 * QASPER questions, answers of varied quality (the annotated evidence itself, a truncated and a
 * padded copy of it, BM25's top 1 and 3 paragraphs, 1 and 3 random paragraphs, the scripted
 * expert's answer) are scored twice: by QASPER's paragraph evidence F1 against the clean paper,
 * and by the embedded judge against the same paper with simulated PDF noise (the text a policy
 * reads); the figure is Spearman's rank correlation of the two over all answers. Both take the
 * best annotator. Also the judge's throughput (roots per second, one thread).
 */
final class JudgeBench implements Benchmark {
  @Override
  public String summary() {
    return "embedded judge vs QASPER evidence F1 (Spearman) over answers of varied quality; roots/s";
  }

  /** One answer to one question, with both scores. */
  record Scored(String kind, double qasperF1, double judge) {}

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    PrintStream out = ctx.out();
    Args args = Args.parse("bench judge", ctx.args(), Set.of("no-expert"), Set.of("qasper", "questions", "seed"));
    Path qasper = QasperDir.require(args.value("qasper"));
    int limit = Integer.parseInt(args.value("questions").orElse("150"));
    long seed = Long.parseLong(args.value("seed").orElse("1"));
    var c = ctx.config();
    List<QasperQuestion> questions = ExpertEvidenceBench.sample(qasper, limit, seed);
    out.printf("bench judge: %d answerable QASPER questions (seed %d) from %s%n", questions.size(), seed, qasper);
    PdfNoise noise = new PdfNoise(c.ingest().noise());
    EmbeddedJudge judge = new EmbeddedJudge(c.judge().embedded().cover());

    List<String> expert = args.flag("no-expert") ? null : expertAnswers(ctx, qasper, questions, out);
    Random random = new Random(seed);
    List<Scored> scored = new ArrayList<>();
    long judged = 0;
    long judgeNanos = 0;
    for (int qi = 0; qi < questions.size(); qi++) {
      QasperQuestion q = questions.get(qi);
      String paper = Files.readString(qasper.resolve("papers").resolve(q.paperId() + ".txt"));
      List<String> paragraphs = ParagraphEvidence.paragraphs(paper);
      String title = paper.lines().findFirst().orElse("").replaceFirst("^#+\\s*", "");
      String noisy = noise.apply(q.paperId(), title, "", paragraphs, paragraphs.stream().map(p -> "").toList());
      Map<String, List<String>> answers = answers(q, paragraphs, random);
      if (expert != null) answers.put("expert", FinalAnswer.spans(expert.get(qi)));
      for (var a : answers.entrySet()) {
        double f1 = ParagraphEvidence.bestF1(ParagraphEvidence.paragraphsOf(a.getValue(), paragraphs), q.evidence());
        long t0 = System.nanoTime();
        double best = 0;
        for (List<String> annotator : q.evidence()) {
          if (annotator.isEmpty()) continue;
          List<Evidence> truth = annotator.stream().map(e -> new Evidence(q.paperId(), e.strip())).toList();
          JudgeCase jc = new JudgeCase(q.question(), truth, Map.of(q.paperId(), noisy), a.getValue());
          Verdict v = judge.judge(jc, AlignedCase.of(jc));
          best = Math.max(best, v.reward());
          judged++;
        }
        judgeNanos += System.nanoTime() - t0;
        scored.add(new Scored(a.getKey(), f1, best));
      }
    }
    double rho = spearman(scored.stream().mapToDouble(Scored::qasperF1).toArray(), scored.stream().mapToDouble(Scored::judge).toArray());
    // Answers both scores put at 0 (random paragraphs, mostly) agree trivially: the figure without them.
    List<Scored> informative = scored.stream().filter(x -> x.qasperF1() > 0 || x.judge() > 0).toList();
    double rhoInformative = spearman(informative.stream().mapToDouble(Scored::qasperF1).toArray(),
        informative.stream().mapToDouble(Scored::judge).toArray());
    double perSecond = judged / (judgeNanos / 1e9);
    out.println("answer kind   | n    | QASPER F1 | judge reward");
    Map<String, List<Scored>> byKind = new LinkedHashMap<>();
    for (Scored s : scored) byKind.computeIfAbsent(s.kind(), k -> new ArrayList<>()).add(s);
    byKind.forEach((kind, list) -> out.printf("%-13s | %-4d | %9.3f | %12.3f%n", kind, list.size(),
        list.stream().mapToDouble(Scored::qasperF1).average().orElse(0), list.stream().mapToDouble(Scored::judge).average().orElse(0)));
    out.printf("bench judge: Spearman %.3f over %d answers (%.3f over the %d that either score puts above 0);"
        + " embedded judge %.0f roots/s (one thread)%n", rho, scored.size(), rhoInformative, informative.size(), perSecond);
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("questions", questions.size());
    figures.put("answers", scored.size());
    figures.put("spearman_vs_qasper_f1", Math.round(rho * 1000) / 1000.0);
    figures.put("spearman_nonzero", Math.round(rhoInformative * 1000) / 1000.0);
    figures.put("answers_nonzero", informative.size());
    figures.put("roots_per_s", Math.round(perSecond));
    figures.put("expert", expert != null);
    return figures;
  }

  /** The answers of varied quality for one question (all but the expert's). */
  static Map<String, List<String>> answers(QasperQuestion q, List<String> paragraphs, Random random) {
    List<String> gold = q.evidence().stream().filter(a -> !a.isEmpty()).findFirst().orElse(List.of()).stream().map(String::strip).toList();
    Set<String> goldSet = new HashSet<>(gold);
    List<String> others = paragraphs.stream().filter(p -> !goldSet.contains(p)).toList();
    Map<String, List<String>> out = new LinkedHashMap<>();
    out.put("gold", gold);
    List<String> truncated = gold.size() >= 2 ? gold.subList(0, (gold.size() + 1) / 2)
        : gold.stream().map(p -> p.substring(0, Math.max(1, p.length() / 2))).toList();
    out.put("truncated", truncated);
    List<String> padded = new ArrayList<>(gold);
    padded.addAll(pick(others, 2, random));
    out.put("padded", padded);
    try (Bm25Paragraphs bm = new Bm25Paragraphs(paragraphs)) {
      List<Integer> top = bm.top(q.question(), 3);
      out.put("bm25_top1", top.subList(0, Math.min(1, top.size())).stream().map(paragraphs::get).toList());
      out.put("bm25_top3", top.stream().map(paragraphs::get).toList());
    }
    out.put("random_1", pick(others, 1, random));
    out.put("random_3", pick(others, 3, random));
    return out;
  }

  private static List<String> pick(List<String> from, int n, Random random) {
    List<String> copy = new ArrayList<>(from);
    java.util.Collections.shuffle(copy, random);
    return copy.subList(0, Math.min(n, copy.size()));
  }

  /** The scripted expert's final answer (JSON) per question, its single-paper trees run on the clean text. */
  private static List<String> expertAnswers(BenchContext ctx, Path qasper, List<QasperQuestion> questions, PrintStream out)
      throws Exception {
    var c = ctx.config();
    Prompts prompts = Prompts.of(c.rlm());
    long t0 = System.nanoTime();
    List<String> answers = new ArrayList<>();
    try (InProcessSandbox sandbox = new InProcessSandbox(SandboxLimits.of(c.repl()));
        ExecutorService threads = Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()))) {
      TreeRunner runner = new TreeRunner(sandbox, new ExpertPolicy(ExpertPolicy.Settings.defaults()), prompts, RlmLimits.of(c.rlm(), c.repl()));
      List<Future<String>> futures = new ArrayList<>();
      for (QasperQuestion q : questions) {
        String paper = Files.readString(qasper.resolve("papers").resolve(q.paperId() + ".txt"));
        futures.add(threads.submit(() -> runner.run(q.questionId(), q.question(), new RlmContext.Single(paper)).root().finalAnswerJson()));
      }
      for (Future<String> f : futures) answers.add(f.get());
    }
    out.printf("bench judge: expert answered %d questions in %.1f s%n", answers.size(), (System.nanoTime() - t0) / 1e9);
    return answers;
  }

  /** Spearman's rank correlation: Pearson's over ranks, ties sharing their mean rank. */
  static double spearman(double[] x, double[] y) {
    return pearson(ranks(x), ranks(y));
  }

  static double[] ranks(double[] v) {
    Integer[] order = new Integer[v.length];
    for (int i = 0; i < v.length; i++) order[i] = i;
    Arrays.sort(order, (a, b) -> Double.compare(v[a], v[b]));
    double[] rank = new double[v.length];
    for (int i = 0; i < v.length; ) {
      int j = i;
      while (j + 1 < v.length && v[order[j + 1]] == v[order[i]]) j++;
      double mean = (i + j) / 2.0 + 1;
      for (int k = i; k <= j; k++) rank[order[k]] = mean;
      i = j + 1;
    }
    return rank;
  }

  static double pearson(double[] x, double[] y) {
    double mx = Arrays.stream(x).average().orElse(0);
    double my = Arrays.stream(y).average().orElse(0);
    double sxy = 0;
    double sxx = 0;
    double syy = 0;
    for (int i = 0; i < x.length; i++) {
      sxy += (x[i] - mx) * (y[i] - my);
      sxx += (x[i] - mx) * (x[i] - mx);
      syy += (y[i] - my) * (y[i] - my);
    }
    return sxx == 0 || syy == 0 ? 0 : sxy / Math.sqrt(sxx * syy);
  }
}
