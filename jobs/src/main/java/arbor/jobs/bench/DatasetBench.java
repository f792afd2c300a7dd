package arbor.jobs.bench;

import arbor.jobs.bench.rlm.QasperDir;
import arbor.rlm.sandbox.SandboxLimits;
import arbor.rlm.Prompts;
import arbor.rlm.RlmLimits;
import arbor.conf.ArborConfig;
import arbor.ingest.MarkdownPaperReader;
import arbor.ingest.Paper;
import arbor.ingest.Parsed;
import arbor.ingest.PdfNoise;
import arbor.ingest.TextPapers;
import arbor.text.NormalizedText;
import arbor.jobs.cli.Args;
import arbor.notebook.Html;
import arbor.rlm.NodeRecord;
import arbor.rlm.RlmContext;
import arbor.rlm.TreeRunner;
import arbor.rlm.Turn;
import arbor.jobs.bench.rlm.Bm25Paragraphs;
import arbor.jobs.bench.rlm.FinalSpans;
import arbor.jobs.bench.rlm.ParagraphEvidence;
import arbor.jobs.bench.rlm.QasperQuestion;
import arbor.rlm.runtime.FixedPolicies;
import arbor.rlm.sandbox.InProcessSandbox;
import arbor.synthesis.Embedder;
import arbor.synthesis.Evidence;
import arbor.synthesis.EvidenceCheck;
import arbor.synthesis.GenerateQueries;
import arbor.synthesis.GroupContext;
import arbor.synthesis.HumanGenerator;
import arbor.synthesis.LlmGenerator;
import arbor.synthesis.LiteralShortcut;
import arbor.synthesis.OfflineGenerator;
import arbor.synthesis.Query;
import arbor.synthesis.QueryGenerator;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * How hard the dataset's questions are for shortcuts, per generator and for QASPER's own
 * questions, on the same groups of QASPER papers: BM25's top-k paragraphs of the group against the
 * evidence (paragraph F1), the share of queries one literal search of one question word solves
 * ({@link LiteralShortcut}), and the scripted expert's character-span F1 on the noisy text.
 * Groups are formed as {@code synthesize} forms them (the real MiniLM embeddings, the seed plus
 * its nearest papers above the similarity threshold), but exactly and in-process, without Spark.
 */
final class DatasetBench implements Benchmark {
  @Override
  public String summary() {
    return "dataset difficulty: BM25 top-k and one-word search vs the expert, offline vs QASPER questions";
  }

  private record Scored(Query query, GroupContext group) {}

  /** @param bm25SpanF1 BM25's span F1 per analysis; the floor is the better of them (a run-level choice, not per query) */
  private record Figures(int queries, double bm25F1, double shortcutShare, double expertSpanF1,
      Map<Bm25Paragraphs.Analysis, Double> bm25SpanF1, int expertQueries, long located, long checked) {
    double bestBm25SpanF1() {
      return bm25SpanF1.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    PrintStream out = ctx.out();
    Args args = Args.parse("bench dataset", ctx.args(), Set.of(), Set.of("qasper", "papers", "offset", "groups", "k", "expert", "examples"));
    Path qasper = QasperDir.require(args.value("qasper"));
    int paperCount = Integer.parseInt(args.value("papers").orElse("150"));
    int offset = Integer.parseInt(args.value("offset").orElse("100"));
    int groupCount = Integer.parseInt(args.value("groups").orElse("40"));
    int k = Integer.parseInt(args.value("k").orElse("3"));
    int expertSample = Integer.parseInt(args.value("expert").orElse("24"));
    int examples = Integer.parseInt(args.value("examples").orElse("0"));
    Map<String, Object> figures = new LinkedHashMap<>();
    ArborConfig c = ctx.config();
    List<GroupContext.Member> papers = papers(qasper, paperCount, offset, c);
    List<GroupContext> groups = groups(papers, groupCount, c);
    out.printf("bench dataset: %d QASPER papers (%d-%d by id) from %s, %d groups (average %.1f papers)%n", papers.size(), offset,
        offset + papers.size() - 1, qasper, groups.size(), groups.stream().mapToInt(g -> g.members().size()).average().orElse(0));

    Map<String, QueryGenerator> generators = new LinkedHashMap<>();
    generators.put(OfflineGenerator.NAME, new OfflineGenerator(c.synthesis().offline(), c.synthesis().seed()));
    generators.put(HumanGenerator.NAME, new HumanGenerator());
    // The llm generator needs an endpoint, so it is measured only where the configuration asks for it.
    if (c.synthesis().generators().contains(LlmGenerator.NAME)) {
      generators.put(LlmGenerator.NAME, new LlmGenerator(c.synthesis().llm(), LlmGenerator.apiKey(c.synthesis().llm(), System.getenv())));
    } else {
      out.println("bench dataset: the llm generator is not measured: synthesis.generators has no llm (add it, with"
          + " synthesis.llm.base_url and model, to include the endpoint's questions)");
    }
    Map<String, Figures> results = new LinkedHashMap<>();
    try (InProcessSandbox sandbox = new InProcessSandbox(SandboxLimits.of(c.repl()))) {
      TreeRunner runner = new TreeRunner(sandbox, FixedPolicies.scripted(c), Prompts.of(c.rlm()),
          RlmLimits.of(c.rlm(), c.repl()));
      for (var g : generators.entrySet()) {
        results.put(g.getKey(), measure(g.getValue(), groups, c.synthesis().queriesPerGroup(), k, expertSample, examples, runner, out));
      }
    } finally {
      for (QueryGenerator g : generators.values()) if (g instanceof AutoCloseable closeable) closeable.close();
    }
    double ownPaper = ownPaperBm25(qasper, papers, k);

    out.printf("bench dataset: %-8s %8s %12s %16s %16s %14s %10s%n", "", "queries", "BM25 top-" + k, "one-word search", "expert span F1",
        "BM25 span F1", "located");
    results.forEach((name, f) -> out.printf("bench dataset: %-8s %8d %12.3f %16.3f %11.3f (%2d) %14.3f %9.1f%%%n", name, f.queries(),
        f.bm25F1(), f.shortcutShare(), f.expertSpanF1(), f.expertQueries(), f.bestBm25SpanF1(),
        f.checked() == 0 ? 0 : 100.0 * f.located() / f.checked()));
    results.forEach((name, f) -> out.printf(Locale.ROOT, "bench dataset: %s: BM25 span F1 is the better analysis of %s%n", name,
        String.join(", ", f.bm25SpanF1().entrySet().stream()
            .map(e -> e.getKey().name().toLowerCase(Locale.ROOT) + String.format(Locale.ROOT, " %.3f", e.getValue())).toList())));
    out.printf("bench dataset: QASPER questions as QASPER asks them (one paper, unscoped): BM25 top-%d F1 %.3f%n", k, ownPaper);

    Figures offline = results.get(OfflineGenerator.NAME);
    Figures human = results.get(HumanGenerator.NAME);
    figures.put("papers", papers.size());
    figures.put("groups", groups.size());
    figures.put("k", k);
    figures.put("queries_offline", offline.queries());
    figures.put("queries_human", human.queries());
    figures.put("bm25_f1_offline", round(offline.bm25F1()));
    figures.put("bm25_f1_human", round(human.bm25F1()));
    figures.put("bm25_ratio_offline_to_human", human.bm25F1() == 0 ? null : round(offline.bm25F1() / human.bm25F1()));
    figures.put("bm25_f1_human_own_paper", round(ownPaper));
    figures.put("literal_shortcut_share_offline", round(offline.shortcutShare()));
    figures.put("literal_shortcut_share_human", round(human.shortcutShare()));
    figures.put("expert_span_f1_offline", round(offline.expertSpanF1()));
    figures.put("expert_span_f1_human", round(human.expertSpanF1()));
    figures.put("bm25_span_f1_offline", round(offline.bestBm25SpanF1()));
    figures.put("bm25_span_f1_human", round(human.bestBm25SpanF1()));
    for (Bm25Paragraphs.Analysis a : Bm25Paragraphs.Analysis.values()) {
      String name = a.name().toLowerCase(Locale.ROOT);
      figures.put("bm25_span_f1_" + name + "_offline", round(offline.bm25SpanF1().get(a)));
      figures.put("bm25_span_f1_" + name + "_human", round(human.bm25SpanF1().get(a)));
    }
    figures.put("located_share_offline", offline.checked() == 0 ? null : round((double) offline.located() / offline.checked()));
    figures.put("located_share_human", human.checked() == 0 ? null : round((double) human.located() / human.checked()));
    Figures llm = results.get(LlmGenerator.NAME);
    if (llm != null) {
      figures.put("queries_llm", llm.queries());
      figures.put("bm25_f1_llm", round(llm.bm25F1()));
      figures.put("bm25_ratio_llm_to_human", human.bm25F1() == 0 ? null : round(llm.bm25F1() / human.bm25F1()));
      figures.put("literal_shortcut_share_llm", round(llm.shortcutShare()));
      figures.put("expert_span_f1_llm", round(llm.expertSpanF1()));
      figures.put("bm25_span_f1_llm", round(llm.bestBm25SpanF1()));
      figures.put("located_share_llm", llm.checked() == 0 ? null : round((double) llm.located() / llm.checked()));
    }
    return figures;
  }

  /** The papers, read as ingest reads them (markdown with headings, simulated PDF noise), each owning its answerable questions. */
  private static List<GroupContext.Member> papers(Path qasper, int n, int offset, ArborConfig c) throws Exception {
    List<Path> files;
    try (Stream<Path> s = Files.list(qasper.resolve("papers"))) {
      files = s.filter(p -> p.toString().endsWith(".txt")).sorted().skip(offset).limit(n).toList();
    }
    Map<String, List<GroupContext.SourceQuestion>> questions = new LinkedHashMap<>();
    for (QasperQuestion q : QasperQuestion.readAnswerable(qasper.resolve("questions_train.json"))) {
      questions.computeIfAbsent(q.paperId(), id -> new ArrayList<>())
          .add(new GroupContext.SourceQuestion(q.questionId(), q.question(), q.evidence()));
    }
    MarkdownPaperReader reader = new MarkdownPaperReader(new TextPapers(new PdfNoise(c.ingest().noise()), c.ingest().defaultScore()));
    List<GroupContext.Member> out = new ArrayList<>();
    for (Path f : files) {
      String id = f.getFileName().toString().replace(".txt", "");
      Parsed parsed = reader.read(id, f.toString(), Files.readAllBytes(f));
      if (parsed.papers().isEmpty()) continue;
      Paper p = parsed.papers().get(0);
      out.add(new GroupContext.Member(p.paperId(), p.title(), p.abstractText(), p.cleanParagraphs(), p.sections(), p.noisyText(),
          p.score(), questions.getOrDefault(p.paperId(), List.of())));
    }
    return out;
  }

  /** Seeds in a seeded hash order; each group is its seed and the nearest papers above the threshold; a paper's questions go to one group. */
  private static List<GroupContext> groups(List<GroupContext.Member> papers, int n, ArborConfig c) {
    Embedder embedder = Embedder.forSettings(c.synthesis().embedding());
    List<float[]> vectors = embedder.embed(papers.stream().map(p -> (p.title() + "\n" + p.abstractText())).toList());
    long seed = c.synthesis().seed();
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < papers.size(); i++) order.add(i);
    order.sort(Comparator.comparing(i -> arbor.text.Hashes.sha256(seed + "\u0000" + papers.get(i).paperId())));
    Set<String> owned = new HashSet<>();
    List<GroupContext> out = new ArrayList<>();
    var gs = c.synthesis().groups();
    for (int s : order.subList(0, Math.min(n, order.size()))) {
      List<Integer> near = new ArrayList<>();
      for (int j = 0; j < papers.size(); j++) if (j != s && dot(vectors.get(s), vectors.get(j)) >= gs.minSimilarity()) near.add(j);
      near.sort(Comparator.comparingDouble(j -> -dot(vectors.get(s), vectors.get(j))));
      List<GroupContext.Member> members = new ArrayList<>();
      members.add(papers.get(s));
      near.stream().limit(gs.maxSize() - 1L).forEach(j -> members.add(papers.get(j)));
      List<GroupContext.Member> withOwnership = new ArrayList<>();
      for (GroupContext.Member m : members) {
        boolean owns = owned.add(m.paperId());
        withOwnership.add(owns ? m : new GroupContext.Member(m.paperId(), m.title(), m.abstractText(), m.cleanParagraphs(), m.sections(),
            m.noisyText(), m.score(), List.of()));
      }
      out.add(new GroupContext("g-" + papers.get(s).paperId(), papers.get(s).paperId(), withOwnership));
    }
    return out;
  }

  private static double dot(float[] a, float[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) s += a[i] * b[i];
    return s;
  }

  private static Figures measure(QueryGenerator generator, List<GroupContext> groups, int perGroup, int k, int expertSample,
      int examples, TreeRunner runner, PrintStream out) {
    List<Scored> queries = new ArrayList<>();
    long checked = 0;
    long located = 0;
    for (GroupContext g : groups) {
      for (Query q : generator.generate(g, perGroup).queries()) {
        if (EvidenceCheck.problem(q, g).isPresent()) continue;
        checked++;
        if (GenerateQueries.unlocated(q, g).isPresent()) continue;
        located++;
        queries.add(new Scored(q, g));
      }
    }
    // Examples for the docs: every n-th query, evidence cut to 60 characters.
    int every = Math.max(1, queries.size() / Math.max(1, examples));
    for (int i = 0, shown = 0; examples > 0 && i < queries.size() && shown < examples; i += every, shown++) {
      Query q = queries.get(i).query();
      Evidence first = q.evidence().get(0);
      out.printf("bench dataset: example %s %d. *%s*, %d of %d papers, %d paragraph(s): **%s**%n    evidence from %s; first: `%s`: \"%s...\"%n",
          generator.name(), shown + 1, q.tier().label(), q.evidencePapers().size(), queries.get(i).group().members().size(),
          q.evidence().size(), q.question(), String.join(", ", q.evidencePapers()), first.paperId(),
          first.text().substring(0, Math.min(60, first.text().length())));
    }
    double bm25 = 0;
    int shortcuts = 0;
    for (Scored s : queries) {
      bm25 += bm25F1(s, k);
      if (LiteralShortcut.solvingWord(s.query(), s.group()) != null) shortcuts++;
    }
    // The expert runs whole trees (children per paper): a spread sample, not every query.
    List<Scored> sample = new ArrayList<>();
    int step = Math.max(1, queries.size() / Math.max(1, expertSample));
    for (int i = 0; i < queries.size() && sample.size() < expertSample; i += step) sample.add(queries.get(i));
    double expert = 0;
    Map<Bm25Paragraphs.Analysis, Double> bm25Spans = new EnumMap<>(Bm25Paragraphs.Analysis.class);
    long t0 = System.nanoTime();
    for (int i = 0; i < sample.size(); i++) {
      // The first --examples trees are printed node by node: the failures are in what the cells did.
      expert += expertSpanF1(sample.get(i), runner, i < examples ? out : null);
      for (Bm25Paragraphs.Analysis a : Bm25Paragraphs.Analysis.values()) bm25Spans.merge(a, bm25SpanF1(sample.get(i), k, a), Double::sum);
    }
    out.printf("bench dataset: %s: %d queries; the expert ran %d trees in %.0f s%n", generator.name(), queries.size(), sample.size(),
        (System.nanoTime() - t0) / 1e9);
    return new Figures(queries.size(), queries.isEmpty() ? 0 : bm25 / queries.size(), queries.isEmpty() ? 0 : (double) shortcuts / queries.size(),
        sample.isEmpty() ? 0 : expert / sample.size(), mean(bm25Spans, sample.size()), sample.size(),
        located, checked);
  }

  /** BM25 over every clean paragraph of the group; paragraph-set F1 of its top k against the evidence paragraphs. */
  private static double bm25F1(Scored s, int k) {
    List<String> keys = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    for (GroupContext.Member m : s.group().members()) {
      for (String p : m.cleanParagraphs()) {
        keys.add(m.paperId() + "\u0000" + p);
        texts.add(p);
      }
    }
    Set<String> gold = new HashSet<>();
    for (Evidence e : s.query().evidence()) {
      for (String p : s.group().member(e.paperId()).orElseThrow().cleanParagraphs()) {
        if (p.contains(e.text())) {
          gold.add(e.paperId() + "\u0000" + p);
          break;
        }
      }
    }
    Set<String> predicted = new HashSet<>();
    try (Bm25Paragraphs bm = new Bm25Paragraphs(texts)) {
      for (int i : bm.top(s.query().question(), k)) predicted.add(keys.get(i));
    }
    return ParagraphEvidence.f1(predicted, gold);
  }

  /** QASPER's questions as QASPER asks them: BM25 over their own paper only, the question unscoped. */
  private static double ownPaperBm25(Path qasper, List<GroupContext.Member> papers, int k) throws Exception {
    Set<String> ids = new HashSet<>();
    papers.forEach(p -> ids.add(p.paperId()));
    double sum = 0;
    int n = 0;
    for (QasperQuestion q : QasperQuestion.readAnswerable(qasper.resolve("questions_train.json"))) {
      if (!ids.contains(q.paperId())) continue;
      List<String> paragraphs = ParagraphEvidence.paragraphs(Files.readString(qasper.resolve("papers").resolve(q.paperId() + ".txt")));
      try (Bm25Paragraphs bm = new Bm25Paragraphs(paragraphs)) {
        List<String> top = bm.top(q.question(), k).stream().map(paragraphs::get).toList();
        sum += ParagraphEvidence.bestF1(new HashSet<>(top), q.evidence());
        n++;
      }
    }
    return n == 0 ? 0 : sum / n;
  }

  /**
   * The scripted expert's tree over the group's noisy texts; character-interval F1 of its spans
   * against the evidence located in the same texts, micro-averaged over the papers.
   */
  private static double expertSpanF1(Scored s, TreeRunner runner, PrintStream trace) {
    Map<String, String> texts = noisyTexts(s);
    TreeRunner.TreeResult tree = runner.run(s.query().queryId(), s.query().question(), new RlmContext.Papers(texts));
    if (trace != null) trace(s, tree, trace);
    Map<String, List<int[]>> predicted = new LinkedHashMap<>();
    for (String span : FinalSpans.of(tree.root().finalAnswerJson())) {
      if (span.isBlank()) continue;
      for (var t : texts.entrySet()) {
        int at = t.getValue().indexOf(span);
        if (at >= 0) {
          predicted.computeIfAbsent(t.getKey(), id -> new ArrayList<>()).add(new int[] {at, at + span.length()});
          break;
        }
      }
    }
    double f1 = spanF1(s, texts, predicted);
    if (trace != null) trace.printf(Locale.ROOT, "    span F1 %.3f; evidence in %s%n", f1, s.query().evidencePapers());
    return f1;
  }

  /** What the expert's tree did on one query, node by node: its status, each turn's output, its answer. */
  private static void trace(Scored s, TreeRunner.TreeResult tree, PrintStream out) {
    out.printf("bench dataset: the expert on %s (%d papers): %s%n", s.query().queryId(), s.group().members().size(),
        s.query().question());
    for (NodeRecord n : tree.nodes()) {
      String indent = "    " + "  ".repeat(n.depth());
      out.printf("%s%s %s, %d turn(s), answer %s%n", indent, n.nodeId(), n.status(), n.turns().size(),
          oneLine(n.finalAnswerJson(), 100));
      for (Turn t : n.turns()) out.printf("%s  turn %d printed: %s%n", indent, t.index(), oneLine(t.observation(), 160));
    }
  }

  private static String oneLine(String text, int max) {
    return text == null ? "-" : Html.clip(text.replace('\n', ' '), max);
  }

  /**
   * BM25's top k clean paragraphs of the group, located in the noisy texts as the evidence is:
   * the floor the expert is measured against, in the expert's measure.
   */
  private static double bm25SpanF1(Scored s, int k, Bm25Paragraphs.Analysis analysis) {
    Map<String, String> texts = noisyTexts(s);
    List<String> owners = new ArrayList<>();
    List<String> paragraphs = new ArrayList<>();
    for (GroupContext.Member m : s.group().members()) {
      for (String p : m.cleanParagraphs()) {
        owners.add(m.paperId());
        paragraphs.add(p);
      }
    }
    Map<String, List<int[]>> predicted = new LinkedHashMap<>();
    try (Bm25Paragraphs bm = new Bm25Paragraphs(paragraphs, analysis)) {
      for (int i : bm.top(s.query().question(), k)) {
        NormalizedText.of(texts.get(owners.get(i))).locate(paragraphs.get(i)).ifPresent(span ->
            predicted.computeIfAbsent(owners.get(i), id -> new ArrayList<>()).add(new int[] {span.start(), span.end()}));
      }
    }
    return spanF1(s, texts, predicted);
  }

  private static Map<Bm25Paragraphs.Analysis, Double> mean(Map<Bm25Paragraphs.Analysis, Double> sums, int n) {
    Map<Bm25Paragraphs.Analysis, Double> out = new EnumMap<>(Bm25Paragraphs.Analysis.class);
    for (Bm25Paragraphs.Analysis a : Bm25Paragraphs.Analysis.values()) out.put(a, n == 0 ? 0 : sums.getOrDefault(a, 0.0) / n);
    return out;
  }

  private static Map<String, String> noisyTexts(Scored s) {
    Map<String, String> texts = new LinkedHashMap<>();
    s.group().members().forEach(m -> texts.put(m.paperId(), m.noisyText()));
    return texts;
  }

  /** Character-interval F1 of {@code predicted} against the query's evidence located in the texts, micro-averaged. */
  private static double spanF1(Scored s, Map<String, String> texts, Map<String, List<int[]>> predicted) {
    Map<String, List<int[]>> gold = new LinkedHashMap<>();
    for (Evidence e : s.query().evidence()) {
      NormalizedText.of(texts.get(e.paperId())).locate(e.text())
          .ifPresent(span -> gold.computeIfAbsent(e.paperId(), id -> new ArrayList<>()).add(new int[] {span.start(), span.end()}));
    }
    long overlap = 0;
    long predictedChars = 0;
    long goldChars = 0;
    for (String paper : texts.keySet()) {
      List<int[]> g = merge(gold.getOrDefault(paper, List.of()));
      List<int[]> p = merge(predicted.getOrDefault(paper, List.of()));
      goldChars += length(g);
      predictedChars += length(p);
      for (int[] a : g) for (int[] b : p) overlap += Math.max(0, Math.min(a[1], b[1]) - Math.max(a[0], b[0]));
    }
    if (overlap == 0) return 0;
    double precision = (double) overlap / predictedChars;
    double recall = (double) overlap / goldChars;
    return 2 * precision * recall / (precision + recall);
  }

  private static List<int[]> merge(List<int[]> spans) {
    List<int[]> sorted = new ArrayList<>(spans);
    sorted.sort(Comparator.comparingInt(a -> a[0]));
    List<int[]> out = new ArrayList<>();
    for (int[] s : sorted) {
      if (!out.isEmpty() && s[0] <= out.getLast()[1]) out.getLast()[1] = Math.max(out.getLast()[1], s[1]);
      else out.add(new int[] {s[0], s[1]});
    }
    return out;
  }

  private static long length(List<int[]> spans) {
    return spans.stream().mapToLong(s -> s[1] - s[0]).sum();
  }

  private static Double round(double x) {
    return Math.round(x * 1000) / 1000.0;
  }
}
