package arbor.jobs.synthesize;

import static org.apache.spark.sql.functions.*;

import arbor.conf.SynthesisSettings;
import arbor.jobs.cli.JobContext;
import arbor.pipelines.synthesis.Embed;
import arbor.synthesis.Evidence;
import arbor.pipelines.synthesis.EvidenceParagraphs;
import arbor.pipelines.synthesis.Grouping;
import arbor.synthesis.LlmGenerator;
import arbor.synthesis.Queries;
import arbor.pipelines.synthesis.Recheck;
import arbor.synthesis.SplitPlan;
import arbor.pipelines.synthesis.Synthesize;
import arbor.synthesis.SynthesisRows;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * The steps {@code synthesize} and {@code refresh} share: embed the papers that lack a vector,
 * retire the queries whose evidence no longer holds, form the groups of new seed papers, give
 * queries to every group that has none yet, assign splits, and MERGE everything; finally mark
 * the embedded papers as considered for seeding.
 *
 * <p>Each write is one atomic MERGE, and each step finds its work from the tables, not from what
 * an earlier step of the same run returned, so a run that crashes between two writes is completed
 * by the next: a group without queries (and without a recorded failure) gets them, and a paper
 * embedded but not yet marked seeded is still a seed candidate.
 */
public final class DatasetBuilder {
  /** The {@code synthesis_errors} generator of a group that no generator could give a query: it is done, not pending. */
  public static final String NO_QUERY = "*";
  static final String SEEDED_AT = "seeded_at";

  private final JobContext context;
  private final SynthesisSettings settings;
  private final Warehouse warehouse;

  public DatasetBuilder(JobContext context) {
    this.context = context;
    this.settings = context.config().synthesis();
    this.warehouse = context.warehouse();
  }

  /** What one build did. Maps count this run's new queries. */
  public record Summary(long embedded, long retired, long groupsNew, long groupsTotal, double avgGroupSize, long queriesNew,
      long queriesTotal, Map<String, Long> tiers, Map<String, Long> splits, Map<String, Long> generators,
      long located, long checked, long dropped, Map<String, Long> droppedReasons, long errors, long empty) {}

  /** Embeds every paper whose current version has no vector yet; returns how many. */
  public long embedMissing() {
    markOldVectorsSeeded();
    Embed embed = new Embed(settings.embedding());
    Dataset<Row> papers = warehouse.read(Table.PAPERS);
    Dataset<Row> existing = warehouse.exists(Table.PAPER_EMBEDDINGS) ? warehouse.read(Table.PAPER_EMBEDDINGS)
        : context.spark().createDataFrame(List.of(), SynthesisRows.EMBEDDING);
    long start = System.nanoTime();
    // Materialised before the MERGE: Delta refreshes cached plans that read the table it writes,
    // and recomputing "what is missing" after the MERGE would find nothing (so: checkpoints, not caches).
    Dataset<Row> vectors = embed.transform(embed.missing(papers, existing))
        .withColumn(SEEDED_AT, lit(null).cast(DataTypes.TimestampType)).localCheckpoint(true);
    Warehouse.MergeCounts m = warehouse.upsert(Table.PAPER_EMBEDDINGS, vectors, "t.content_hash <> s.content_hash");
    context.out().printf("%s: embedded %d paper(s) with %s in %.1f s (%d new, %d re-embedded)%n", context.job(), m.sourceRows(),
        embed.model(), (System.nanoTime() - start) / 1e9, m.inserted(), m.updated());
    return m.sourceRows();
  }

  /** Vectors from before seeding was recorded were considered by the runs that made them: they are marked, in one MERGE. */
  private void markOldVectorsSeeded() {
    if (!warehouse.exists(Table.PAPER_EMBEDDINGS)) return;
    Dataset<Row> all = warehouse.read(Table.PAPER_EMBEDDINGS);
    if (List.of(all.columns()).contains(SEEDED_AT)) return;
    warehouse.upsert(Table.PAPER_EMBEDDINGS, all.withColumn(SEEDED_AT, col("embedded_at")).localCheckpoint(true), "true");
  }

  /** Papers with their current vector: paper_id, score, embedding. */
  public Dataset<Row> vectors() {
    return currentEmbeddings().select("paper_id", "score", "embedding");
  }

  /** Papers whose current vector has not been considered as a seed yet (a refresh's candidates): paper_id, score, embedding. */
  public Dataset<Row> unseeded() {
    return currentEmbeddings().where(col(SEEDED_AT).isNull()).select("paper_id", "score", "embedding");
  }

  private Dataset<Row> currentEmbeddings() {
    Dataset<Row> papers = warehouse.read(Table.PAPERS).select("paper_id", "content_hash", "score");
    Dataset<Row> embeddings = warehouse.read(Table.PAPER_EMBEDDINGS)
        .where(col("model").equalTo(new Embed(settings.embedding()).model()));
    if (!List.of(embeddings.columns()).contains(SEEDED_AT)) embeddings = embeddings.withColumn(SEEDED_AT, col("embedded_at"));
    return papers.join(embeddings.select("paper_id", "content_hash", "embedding", SEEDED_AT), seq("paper_id", "content_hash"));
  }

  /** Marks every current vector as considered for seeding: the last write of a build. */
  public void markSeeded() {
    if (!List.of(warehouse.read(Table.PAPER_EMBEDDINGS).columns()).contains(SEEDED_AT)) return;
    Dataset<Row> pending = warehouse.read(Table.PAPER_EMBEDDINGS).where(col(SEEDED_AT).isNull())
        .withColumn(SEEDED_AT, current_timestamp()).localCheckpoint(true);
    warehouse.upsert(Table.PAPER_EMBEDDINGS, pending, "t.seeded_at IS NULL");
  }

  /** Retires the active queries whose evidence no longer holds in the current papers; returns how many. */
  public long retireStale() {
    if (!warehouse.exists(Table.QUERIES)) return 0;
    Dataset<Row> queries = warehouse.read(Table.QUERIES);
    Dataset<Row> stale = Recheck.stale(queries, warehouse.read(Table.PAPERS));
    Dataset<Row> retired = withRetirement(queries).drop(Queries.RETIRED_AT, Queries.RETIRED_REASON)
        .join(stale, Queries.QUERY_ID)
        .withColumn(Queries.RETIRED_AT, current_timestamp())
        .select(queryColumns()).localCheckpoint(true);
    Warehouse.MergeCounts m = warehouse.upsert(Table.QUERIES, retired, "t.retired_at IS NULL");
    if (m.sourceRows() > 0) {
      context.out().printf("%s: %d quer%s retired: its evidence no longer holds in the paper's current text%n", context.job(),
          m.updated(), m.updated() == 1 ? "y" : "ies");
    }
    return m.updated();
  }

  private static org.apache.spark.sql.Column[] queryColumns() {
    return new org.apache.spark.sql.Column[] {col(Queries.QUERY_ID), col(Queries.GROUP_ID), col(Queries.QUESTION),
        col(Queries.EVIDENCE), col(Queries.TIER), col(Queries.SPLIT), col(Queries.GENERATOR), col(Queries.SOURCE_ID),
        col(Queries.CREATED_AT), col(Queries.RETIRED_AT).cast(DataTypes.TimestampType).as(Queries.RETIRED_AT),
        col(Queries.RETIRED_REASON).cast(DataTypes.StringType).as(Queries.RETIRED_REASON)};
  }

  /** The table with the retirement columns, null where a table from before them lacks them. */
  private static Dataset<Row> withRetirement(Dataset<Row> queries) {
    Dataset<Row> out = queries;
    if (!List.of(out.columns()).contains(Queries.RETIRED_AT)) out = out.withColumn(Queries.RETIRED_AT, lit(null).cast(DataTypes.TimestampType));
    if (!List.of(out.columns()).contains(Queries.RETIRED_REASON)) out = out.withColumn(Queries.RETIRED_REASON, lit(null).cast(DataTypes.StringType));
    return out;
  }

  private static scala.collection.immutable.Seq<String> seq(String... names) {
    return scala.jdk.javaapi.CollectionConverters.asScala(List.of(names)).toSeq();
  }

  /**
   * Forms the groups of {@code seeds} (one column, paper_id) that have none yet, then gives
   * queries to every group that has neither queries nor a recorded failure: this run's new
   * groups, and any an interrupted run left without.
   */
  public Summary build(Dataset<Row> seeds, long embedded, long retired) {
    String llmKey = settings.generators().contains(LlmGenerator.NAME) ? LlmGenerator.apiKey(settings.llm(), System.getenv()) : null;
    Dataset<Row> vectors = vectors().persist(StorageLevel.MEMORY_AND_DISK());
    Dataset<Row> newSeeds = seeds;
    if (warehouse.exists(Table.PAPER_GROUPS)) {
      newSeeds = seeds.join(warehouse.read(Table.PAPER_GROUPS).select(col("seed_paper_id").as("paper_id")), seq("paper_id"), "left_anti");
    }
    Dataset<Row> groups = new Grouping(settings.groups(), settings.seed()).transform(vectors, newSeeds)
        .withColumn("created_at", current_timestamp()).localCheckpoint(true);
    Warehouse.MergeCounts g = warehouse.upsert(Table.PAPER_GROUPS, groups, "false");
    double avgSize = g.sourceRows() == 0 ? 0 : groups.agg(avg(size(col("paper_ids")))).first().getDouble(0);

    Dataset<Row> pending = pendingGroups().localCheckpoint(true);
    Synthesize stage = new Synthesize(settings, llmKey);
    Dataset<Row> questions = warehouse.exists(Table.SOURCE_QUESTIONS) ? warehouse.read(Table.SOURCE_QUESTIONS) : null;
    Dataset<Row> used = warehouse.exists(Table.QUERIES)
        ? warehouse.read(Table.QUERIES).where(col("source_id").isNotNull()).select("source_id") : null;
    // Generated once (an llm generator is paid per call), whatever the MERGEs below refresh.
    Dataset<Row> generated = stage.transform(stage.contexts(pending, warehouse.read(Table.PAPERS), questions, used))
        .localCheckpoint(true);

    Map<String, String> splitDrops = new TreeMap<>();
    Dataset<Row> queries = withSplits(generated.where(col("kind").equalTo(SynthesisRows.QUERY)), splitDrops)
        .withColumn(Queries.CREATED_AT, current_timestamp())
        .withColumn(Queries.RETIRED_AT, lit(null).cast(DataTypes.TimestampType))
        .withColumn(Queries.RETIRED_REASON, lit(null).cast(DataTypes.StringType))
        .select(queryColumns()).localCheckpoint(true);
    Warehouse.MergeCounts q = warehouse.upsert(Table.QUERIES, queries, "false");

    // A pending group that got no query is recorded as done, so later runs do not ask again.
    Dataset<Row> empty = pending.select("group_id")
        .join(queries.select("group_id").distinct(), seq("group_id"), "left_anti")
        .join(generated.where(col("kind").equalTo(SynthesisRows.ERROR)).select("group_id").distinct(), seq("group_id"), "left_anti")
        .select(col("group_id"), lit(NO_QUERY).as("generator"), lit("no candidate of any generator passed the checks").as("reason"));
    Dataset<Row> errors = generated.where(col("kind").equalTo(SynthesisRows.ERROR))
        .select(col("group_id"), col("generator"), col("reason")).unionByName(empty).withColumn("at", current_timestamp())
        .localCheckpoint(true);
    Warehouse.MergeCounts e = warehouse.upsert(Table.SYNTHESIS_ERRORS, errors, "NOT (t.reason <=> s.reason)");
    long emptyGroups = errors.where(col("generator").equalTo(NO_QUERY)).count();

    Map<String, Long> dropped = counts(generated.where(col("kind").equalTo(SynthesisRows.DROPPED))
        .withColumn("reason", regexp_replace(col("reason"), " \\([^)]*\\)$|(of|from) \\S+$", "$1 ...")), "reason");
    splitDrops.values().forEach(reason -> dropped.merge(reason.replaceAll(" \\([^)]*\\)$", " ..."), 1L, Long::sum));
    Map<String, Long> located = counts(generated.where(col("kind").equalTo(SynthesisRows.LOCATED)), "reason");
    Summary summary = new Summary(embedded, retired, g.inserted(), warehouse.read(Table.PAPER_GROUPS).count(), avgSize, q.inserted(),
        warehouse.read(Table.QUERIES).count(), counts(queries, "tier"), counts(queries, "split"), counts(queries, "generator"),
        located.getOrDefault(SynthesisRows.YES, 0L), located.values().stream().mapToLong(Long::longValue).sum(),
        dropped.values().stream().mapToLong(Long::longValue).sum(), dropped, e.sourceRows() - emptyGroups, emptyGroups);
    vectors.unpersist();
    return summary;
  }

  /** Groups with no query and no synthesis_errors row: the new ones, and any a crashed run left without queries. */
  private Dataset<Row> pendingGroups() {
    Dataset<Row> groups = warehouse.read(Table.PAPER_GROUPS).select("group_id", "seed_paper_id", "paper_ids");
    if (warehouse.exists(Table.QUERIES)) groups = groups.join(warehouse.read(Table.QUERIES).select("group_id").distinct(), seq("group_id"), "left_anti");
    if (warehouse.exists(Table.SYNTHESIS_ERRORS)) {
      groups = groups.join(warehouse.read(Table.SYNTHESIS_ERRORS).select("group_id").distinct(), seq("group_id"), "left_anti");
    }
    return groups;
  }

  /**
   * Adds each query's split ({@link SplitPlan}: whole groups, no question or evidence paragraph in
   * two splits, a paragraph being the whole clean paragraph that holds the evidence:
   * {@link EvidenceParagraphs}); the queries it cannot place without a leak are left out, their
   * reasons in {@code dropped}.
   */
  private Dataset<Row> withSplits(Dataset<Row> queries, Map<String, String> dropped) {
    List<SplitPlan.Candidate> candidates = new ArrayList<>();
    Dataset<Row> papers = warehouse.read(Table.PAPERS);
    for (Row r : EvidenceParagraphs.widen(queries.select("query_id", "group_id", "question", "evidence"), papers)
        .select("query_id", "group_id", "question", "evidence").collectAsList()) {
      candidates.add(new SplitPlan.Candidate(r.getString(0), r.getString(1), SplitPlan.keys(r.getString(2), evidence(r.getList(3)))));
    }
    Map<String, String> taken = new HashMap<>();
    Map<String, Long> existing = Map.of();
    if (warehouse.exists(Table.QUERIES)) {
      Dataset<Row> old = warehouse.read(Table.QUERIES);
      existing = counts(old, "split");
      for (Row r : EvidenceParagraphs.widen(old.select("query_id", "question", "evidence", "split"), papers)
          .select("question", "evidence", "split").collectAsList()) {
        for (String key : SplitPlan.keys(r.getString(0), evidence(r.getList(1)))) taken.putIfAbsent(key, r.getString(2));
      }
    }
    SplitPlan.Plan plan = SplitPlan.assign(candidates, taken, existing, settings.splits());
    dropped.putAll(plan.dropped());
    List<Row> rows = plan.splits().entrySet().stream().map(en -> RowFactory.create(en.getKey(), en.getValue())).toList();
    StructType schema = new StructType().add("query_id", DataTypes.StringType, false).add("split", DataTypes.StringType, false);
    return queries.join(context.spark().createDataFrame(rows, schema), "query_id");
  }

  private static List<Evidence> evidence(List<Row> rows) {
    return rows.stream().map(e -> new Evidence(e.getString(0), e.getString(1))).toList();
  }

  private static Map<String, Long> counts(Dataset<Row> rows, String column) {
    Map<String, Long> out = new TreeMap<>();
    for (Row r : rows.groupBy(column).count().collectAsList()) out.put(String.valueOf(r.get(0)), r.getLong(1));
    return out;
  }

  /** Prints the summary: groups, queries per tier, split and generator, what was located and what was dropped. */
  public void print(Summary s) {
    var out = context.out();
    String job = context.job();
    out.printf("%s: %d new group(s) (average %.1f papers), %d in paper_groups%n", job, s.groupsNew(), s.avgGroupSize(), s.groupsTotal());
    out.printf("%s: %d new quer%s, %d in queries%n", job, s.queriesNew(), s.queriesNew() == 1 ? "y" : "ies", s.queriesTotal());
    out.printf("%s:   per tier:      %s%n", job, ordered(s.tiers(), List.of("singleton", "focused", "mid-range", "wide-net")));
    out.printf("%s:   per split:     %s%n", job, ordered(s.splits(), List.of("train", "validation", "test", "sft")));
    out.printf("%s:   per generator: %s%n", job, s.generators());
    if (s.checked() > 0) {
      out.printf("%s: ground truth located in the noisy text: %d of %d checked candidate(s) (%.1f%%)%n", job, s.located(), s.checked(),
          100.0 * s.located() / s.checked());
    }
    out.printf("%s: %d candidate(s) dropped by the checks%s%n", job, s.dropped(), s.dropped() == 0 ? "" : ":");
    s.droppedReasons().forEach((reason, n) -> out.printf("%s:   %5d  %s%n", job, n, reason));
    out.printf("%s: %d group(s) failed in a generator%s%n", job, s.errors(),
        s.errors() == 0 ? "" : " (bin/arbor sql \"SELECT * FROM synthesis_errors\")");
    if (s.empty() > 0) out.printf("%s: %d group(s) got no query from any generator%n", job, s.empty());
  }

  private static Map<String, Long> ordered(Map<String, Long> counts, List<String> order) {
    Map<String, Long> out = new LinkedHashMap<>();
    order.forEach(k -> out.put(k, counts.getOrDefault(k, 0L)));
    counts.forEach(out::putIfAbsent);
    return out;
  }
}
