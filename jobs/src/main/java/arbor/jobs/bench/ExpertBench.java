package arbor.jobs.bench;

import arbor.jobs.bench.rlm.QasperDir;
import arbor.rlm.sandbox.SandboxLimits;
import arbor.rlm.RlmLimits;
import arbor.jobs.cli.Args;
import arbor.rlm.Prompts;
import arbor.jobs.bench.rlm.ExpertEvidenceBench;
import arbor.jobs.bench.rlm.QasperQuestion;
import arbor.rlm.policy.ExpertPolicy;
import arbor.rlm.sandbox.InProcessSandbox;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The scripted expert's paragraph-level evidence F1 on answerable QASPER questions against Lucene
 * BM25 top 1, 2 and 3 over the same papers' paragraphs, same questions, same run. The expert is
 * trusted code, so its trees run in the in-process sandbox.
 */
final class ExpertBench implements Benchmark {
  @Override
  public String summary() {
    return "scripted expert vs BM25 top-k, QASPER paragraph evidence F1";
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    PrintStream out = ctx.out();
    Args args = Args.parse("bench expert", ctx.args(), Set.of(), Set.of("qasper", "questions", "seed", "concurrency"));
    Path qasper = QasperDir.require(args.value("qasper"));
    int limit = Integer.parseInt(args.value("questions").orElse("200"));
    long seed = Long.parseLong(args.value("seed").orElse("1"));
    int concurrency = Integer.parseInt(args.value("concurrency").orElse(
        String.valueOf(Math.max(2, Runtime.getRuntime().availableProcessors()))));
    var c = ctx.config();
    Prompts prompts = Prompts.of(c.rlm());
    List<QasperQuestion> questions = ExpertEvidenceBench.sample(qasper, limit, seed);
    out.printf("bench expert: %d answerable QASPER questions (seed %d) from %s%n", questions.size(), seed, qasper);
    ExpertEvidenceBench.Result r;
    try (InProcessSandbox sandbox = new InProcessSandbox(SandboxLimits.of(c.repl()))) {
      r = ExpertEvidenceBench.run(qasper, questions, sandbox, prompts, RlmLimits.of(c.rlm(), c.repl()),
          ExpertPolicy.Settings.defaults(), concurrency, out);
    }
    out.printf("bench expert: evidence F1  expert %.3f | BM25 (better analysis) top-1 %.3f  top-2 %.3f  top-3 %.3f%n",
        r.expertF1(), r.bm25F1()[0], r.bm25F1()[1], r.bm25F1()[2]);
    r.bm25F1ByAnalysis().forEach((a, f1) -> out.printf(Locale.ROOT, "bench expert: BM25 (%s analysis) top-1 %.3f  top-2 %.3f  top-3 %.3f%n",
        a.name().toLowerCase(Locale.ROOT), f1[0], f1[1], f1[2]));
    out.printf("bench expert: %d spans not verbatim, %d trees without an answer, %.1f s per question%n",
        r.notVerbatim(), r.unfinished(), r.expertSecondsPerQuestion());
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("questions", r.questions());
    figures.put("expert_f1", round(r.expertF1()));
    figures.put("bm25_top1_f1", round(r.bm25F1()[0]));
    figures.put("bm25_top2_f1", round(r.bm25F1()[1]));
    figures.put("bm25_top3_f1", round(r.bm25F1()[2]));
    figures.put("bm25_best_f1", round(r.bestBm25F1()));
    r.bm25F1ByAnalysis().forEach((a, f1) ->
        figures.put("bm25_top3_f1_" + a.name().toLowerCase(Locale.ROOT), round(f1[2])));
    figures.put("not_verbatim", r.notVerbatim());
    figures.put("unfinished", r.unfinished());
    return figures;
  }

  private static double round(double x) {
    return Math.round(x * 1000) / 1000.0;
  }
}
