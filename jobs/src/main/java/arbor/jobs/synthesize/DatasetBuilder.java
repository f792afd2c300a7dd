package arbor.jobs.synthesize;

import static org.apache.spark.sql.functions.*;

import arbor.conf.SynthesisSettings;
import arbor.jobs.JobContext;
import arbor.synthesis.Embed;
import arbor.synthesis.Grouping;
import arbor.synthesis.LlmGenerator;
import arbor.synthesis.SplitPlan;
import arbor.synthesis.Synthesize;
import arbor.synthesis.SynthesisRows;
import arbor.warehouse.Table;
import arbor.warehouse.Warehouse;
import java.util.ArrayList;
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
 * then, for a given set of seed papers, form the new groups, generate their queries, assign
 * splits, and MERGE everything. Existing groups and queries are never touched: a seed that
 * already has a group is skipped, and every MERGE only inserts.
 */
public final class DatasetBuilder {
  private final JobContext context;
  private final SynthesisSettings settings;
  private final Warehouse warehouse;

  public DatasetBuilder(JobContext context) {
    this.context = context;
    this.settings = context.config().synthesis();
    this.warehouse = context.warehouse();
  }

  /** What one build did. Maps count this run's new queries. */
  public record Summary(long embedded, long groupsNew, long groupsTotal, double avgGroupSize, long queriesNew,
      long queriesTotal, Map<String, Long> tiers, Map<String, Long> splits, Map<String, Long> generators,
      long dropped, Map<String, Long> droppedReasons, long errors) {}

  /** Embeds every paper whose current version has no vector yet; returns their ids (materialised), one column paper_id. */
  public Dataset<Row> embedMissing() {
    Embed embed = new Embed(settings.embedding());
    Dataset<Row> papers = warehouse.read(Table.PAPERS);
    Dataset<Row> existing = warehouse.exists(Table.PAPER_EMBEDDINGS) ? warehouse.read(Table.PAPER_EMBEDDINGS)
        : context.spark().createDataFrame(List.of(), SynthesisRows.EMBEDDING);
    long start = System.nanoTime();
    // Materialised before the MERGE: Delta refreshes cached plans that read the table it writes,
    // and recomputing "what is missing" after the MERGE would find nothing (so: checkpoints, not caches).
    Dataset<Row> vectors = embed.transform(embed.missing(papers, existing)).localCheckpoint(true);
    Warehouse.MergeCounts m = warehouse.upsert(Table.PAPER_EMBEDDINGS, vectors, "t.content_hash <> s.content_hash");
    context.out().printf("%s: embedded %d paper(s) with %s in %.1f s (%d new, %d re-embedded)%n", context.job(), m.sourceRows(),
        embed.model(), (System.nanoTime() - start) / 1e9, m.inserted(), m.updated());
    return vectors.select("paper_id");
  }

  /** Papers with their current vector: paper_id, score, embedding. */
  public Dataset<Row> vectors() {
    Dataset<Row> papers = warehouse.read(Table.PAPERS).select("paper_id", "content_hash", "score");
    Dataset<Row> embeddings = warehouse.read(Table.PAPER_EMBEDDINGS)
        .where(col("model").equalTo(new Embed(settings.embedding()).model()))
        .select("paper_id", "content_hash", "embedding");
    return papers.join(embeddings, seq("paper_id", "content_hash"))
        .select("paper_id", "score", "embedding");
  }

  private static scala.collection.immutable.Seq<String> seq(String... names) {
    return scala.jdk.javaapi.CollectionConverters.asScala(List.of(names)).toSeq();
  }

  /** Forms the groups of {@code seeds} (one column, paper_id) that have none yet, and their queries. */
  public Summary build(Dataset<Row> seeds, long embedded) {
    String llmKey = settings.generators().contains(LlmGenerator.NAME) ? LlmGenerator.apiKey(settings.llm()) : null;
    Dataset<Row> vectors = vectors().persist(StorageLevel.MEMORY_AND_DISK());
    Dataset<Row> newSeeds = seeds;
    if (warehouse.exists(Table.PAPER_GROUPS)) {
      newSeeds = seeds.join(warehouse.read(Table.PAPER_GROUPS).select(col("seed_paper_id").as("paper_id")), seq("paper_id"), "left_anti");
    }
    Dataset<Row> groups = new Grouping(settings.groups(), settings.seed()).transform(vectors, newSeeds)
        .withColumn("created_at", current_timestamp()).localCheckpoint(true);
    Warehouse.MergeCounts g = warehouse.upsert(Table.PAPER_GROUPS, groups, "false");
    double avgSize = g.sourceRows() == 0 ? 0 : groups.agg(avg(size(col("paper_ids")))).first().getDouble(0);

    Synthesize stage = new Synthesize(settings, llmKey);
    Dataset<Row> questions = warehouse.exists(Table.SOURCE_QUESTIONS) ? warehouse.read(Table.SOURCE_QUESTIONS) : null;
    Dataset<Row> used = warehouse.exists(Table.QUERIES)
        ? warehouse.read(Table.QUERIES).where(col("source_id").isNotNull()).select("source_id") : null;
    // Generated once (an llm generator is paid per call), whatever the MERGEs below refresh.
    Dataset<Row> generated = stage.transform(stage.contexts(groups, warehouse.read(Table.PAPERS), questions, used))
        .localCheckpoint(true);

    Dataset<Row> queries = withSplits(generated.where(col("kind").equalTo(SynthesisRows.QUERY)))
        .select("query_id", "group_id", "question", "evidence", "tier", "split", "generator", "source_id")
        .withColumn("created_at", current_timestamp()).localCheckpoint(true);
    Warehouse.MergeCounts q = warehouse.upsert(Table.QUERIES, queries, "false");
    Dataset<Row> errors = generated.where(col("kind").equalTo(SynthesisRows.ERROR))
        .select(col("group_id"), col("generator"), col("reason")).withColumn("at", current_timestamp());
    Warehouse.MergeCounts e = warehouse.upsert(Table.SYNTHESIS_ERRORS, errors, "NOT (t.reason <=> s.reason)");

    Map<String, Long> dropped = counts(generated.where(col("kind").equalTo(SynthesisRows.DROPPED))
        .withColumn("reason", regexp_replace(col("reason"), " \\([^)]*\\)$|(of|from) \\S+$", "$1 ...")), "reason");
    Summary summary = new Summary(embedded, g.inserted(), warehouse.read(Table.PAPER_GROUPS).count(), avgSize, q.inserted(),
        warehouse.read(Table.QUERIES).count(), counts(queries, "tier"), counts(queries, "split"), counts(queries, "generator"),
        dropped.values().stream().mapToLong(Long::longValue).sum(), dropped, e.sourceRows());
    vectors.unpersist();
    return summary;
  }

  /** Adds each query's split: whole groups, in the order of their hash, fill validation, test and sft first. */
  private Dataset<Row> withSplits(Dataset<Row> queries) {
    List<SplitPlan.GroupQueries> perGroup = new ArrayList<>();
    for (Row r : queries.groupBy("group_id").count().collectAsList()) perGroup.add(new SplitPlan.GroupQueries(r.getString(0), r.getLong(1)));
    Map<String, Long> existing = warehouse.exists(Table.QUERIES) ? counts(warehouse.read(Table.QUERIES), "split") : Map.of();
    Map<String, String> plan = SplitPlan.assign(perGroup, existing, settings.splits());
    List<Row> rows = plan.entrySet().stream().map(en -> RowFactory.create(en.getKey(), en.getValue())).toList();
    StructType schema = new StructType().add("group_id", DataTypes.StringType, false).add("split", DataTypes.StringType, false);
    return queries.join(context.spark().createDataFrame(rows, schema), "group_id");
  }

  private static Map<String, Long> counts(Dataset<Row> rows, String column) {
    Map<String, Long> out = new TreeMap<>();
    for (Row r : rows.groupBy(column).count().collectAsList()) out.put(String.valueOf(r.get(0)), r.getLong(1));
    return out;
  }

  /** Prints the summary: groups, queries per tier, split and generator, and what was dropped. */
  public void print(Summary s) {
    var out = context.out();
    String job = context.job();
    out.printf("%s: %d new group(s) (average %.1f papers), %d in paper_groups%n", job, s.groupsNew(), s.avgGroupSize(), s.groupsTotal());
    out.printf("%s: %d new quer%s, %d in queries%n", job, s.queriesNew(), s.queriesNew() == 1 ? "y" : "ies", s.queriesTotal());
    out.printf("%s:   per tier:      %s%n", job, ordered(s.tiers(), List.of("singleton", "focused", "mid-range", "wide-net")));
    out.printf("%s:   per split:     %s%n", job, ordered(s.splits(), List.of("train", "validation", "test", "sft")));
    out.printf("%s:   per generator: %s%n", job, s.generators());
    out.printf("%s: %d candidate(s) dropped by the checks%s%n", job, s.dropped(), s.dropped() == 0 ? "" : ":");
    s.droppedReasons().forEach((reason, n) -> out.printf("%s:   %5d  %s%n", job, n, reason));
    out.printf("%s: %d group(s) failed in a generator%s%n", job, s.errors(),
        s.errors() == 0 ? "" : " (bin/arbor sql \"SELECT * FROM synthesis_errors\")");
  }

  private static Map<String, Long> ordered(Map<String, Long> counts, List<String> order) {
    Map<String, Long> out = new LinkedHashMap<>();
    order.forEach(k -> out.put(k, counts.getOrDefault(k, 0L)));
    counts.forEach(out::putIfAbsent);
    return out;
  }
}
