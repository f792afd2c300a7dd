package arbor.jobs.ingest;

import arbor.ingest.DistinctFiles;
import arbor.pipelines.ingest.Ingest;
import arbor.ingest.IngestError;
import arbor.ingest.IngestRows;
import arbor.ingest.SourceFile;
import arbor.pipelines.ingest.SourceListing;
import arbor.jobs.cli.Args;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import arbor.progress.Progress;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code arbor ingest --papers PATH...}: reads papers into {@code papers}, the questions that
 * come with them into {@code source_questions}, and every input it could not read into
 * {@code ingest_errors}. Idempotent: unchanged inputs change nothing; a changed file updates
 * its row.
 */
public final class IngestJob implements Job {

  @Override
  public String summary() {
    return "read PDFs, QASPER and JSON Lines papers into the papers table";
  }

  @Override
  public String usage() {
    return """
        options:
          --papers PATH...  files or folders (any Hadoop URI); the reader follows the file type:
                            .pdf (with a .tex/.Rnw source beside it when there is one),
                            .md/.txt markdown papers, QASPER .json, .jsonl of
                            {id, title, abstract, paragraphs[, score]}
        writes: papers, source_questions, ingest_errors (under the warehouse)
        exit code 1 only when no paper could be read.""";
  }

  @Override
  public int run(JobContext context) throws Exception {
    Args args = Args.parse("ingest", context.args(), Set.of(), Set.of("papers"));
    if (args.values("papers").isEmpty() || !args.positionals().isEmpty()) {
      throw new UsageError("ingest: give the papers to read with --papers PATH... (after 'bin/arbor setup', the demo corpus is "
          + context.config().dataDir() + "/corpus)");
    }
    Summary summary = ingest(context, args.values("papers"));
    return summary.papers() > 0 ? 0 : 1;
  }

  /** What one ingest did. {@code papers} counts every paper read, changed or not. */
  public record Summary(long papers, long inserted, long updated, long unchanged, long questions, long errors,
      double parseSeconds, double writeSeconds) {}

  public static Summary ingest(JobContext context, List<String> paths) throws Exception {
    PrintStream out = context.out();
    SparkSession spark = context.spark();
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    SourceListing.Result listing = SourceListing.list(paths, hadoop);
    out.println("ingest: " + listing.files().size() + " file(s) " + kinds(listing.files())
        + (listing.skipped() > 0 ? ", " + listing.skipped() + " of other types skipped" : ""));

    Ingest stage = new Ingest(context.config().ingest());
    DistinctFiles done = new DistinctFiles();
    DistinctFiles withErrors = new DistinctFiles();
    spark.sparkContext().register(done, "ingest.files");
    spark.sparkContext().register(withErrors, "ingest.files_with_errors");
    Ingest.Output output = stage.transform(stage.files(spark, listing.files()), hadoopSettings(hadoop), done, withErrors);
    Dataset<Row> parsed = output.parsed().persist(StorageLevel.MEMORY_AND_DISK());
    long parseStart = System.nanoTime();
    try (var progress = Progress.start("ingest", "files", done::count, () -> listing.files().size(),
        context.config().train().progressSeconds(), out::println)) {
      parsed.count();
    }
    double parseSeconds = (System.nanoTime() - parseStart) / 1e9;
    out.printf("ingest: %d/%d files parsed in %.1f s%n", done.count(), listing.files().size(), parseSeconds);
    long writeStart = System.nanoTime();

    Warehouse warehouse = context.warehouse();
    Dataset<Row> papers = output.papers().persist(StorageLevel.MEMORY_AND_DISK());
    Warehouse.MergeCounts p = warehouse.upsert(Table.PAPERS, papers, "t.content_hash <> s.content_hash");
    Warehouse.MergeCounts q = warehouse.upsert(Table.SOURCE_QUESTIONS, output.questions(),
        "NOT (t.question <=> s.question AND t.evidence <=> s.evidence AND t.answerable <=> s.answerable)");
    Dataset<Row> errors = output.errors().unionByName(listingErrors(spark, listing.errors()))
        .persist(StorageLevel.MEMORY_AND_DISK());
    Warehouse.MergeCounts e = warehouse.upsert(Table.INGEST_ERRORS, errors, "NOT (t.reason <=> s.reason)");
    // A file that failed before and reads now is no longer an error.
    long fixed = warehouse.deleteMatching(Table.INGEST_ERRORS, papers.select("source", "path"));

    double writeSeconds = (System.nanoTime() - writeStart) / 1e9;
    out.printf("ingest: %d paper(s): %d new, %d updated, %d unchanged; %d question(s) (%d new); %d error(s)%s; written in %.1f s%n",
        p.sourceRows(), p.inserted(), p.updated(), p.unchanged(), q.sourceRows(), q.inserted(), e.sourceRows(),
        fixed > 0 ? " (" + fixed + " earlier error(s) cleared)" : "", writeSeconds);
    printErrors(out, errors);
    out.println("ingest: tables under " + warehouse.root() + " (inspect: bin/arbor sql \"SELECT * FROM ingest_errors\")");
    parsed.unpersist();
    papers.unpersist();
    errors.unpersist();
    return new Summary(p.sourceRows(), p.inserted(), p.updated(), p.unchanged(), q.sourceRows(), e.sourceRows(),
        parseSeconds, writeSeconds);
  }

  private static void printErrors(PrintStream out, Dataset<Row> errors) {
    List<Row> first = errors.orderBy("path").limit(20).collectAsList();
    for (Row r : first) out.println("  error: [" + r.getAs("source") + "] " + r.getAs("path") + ": " + r.getAs("reason"));
    long total = errors.count();
    if (total > first.size()) out.println("  ... and " + (total - first.size()) + " more in ingest_errors");
  }

  private static Dataset<Row> listingErrors(SparkSession spark, List<IngestError> errors) {
    List<Row> rows = errors.stream().map(e -> RowFactory.create(e.source(), e.path(), e.reason())).toList();
    return spark.createDataFrame(rows, IngestRows.ERROR_STRUCT).withColumn("at", functions.current_timestamp());
  }

  private static String kinds(List<SourceFile> files) {
    Map<String, Integer> counts = new TreeMap<>();
    files.forEach(f -> counts.merge(f.kind().source, 1, Integer::sum));
    return counts.toString();
  }

  /** The driver's Hadoop settings, for executors to open the same file systems. */
  private static Map<String, String> hadoopSettings(Configuration hadoop) {
    Map<String, String> settings = new HashMap<>();
    hadoop.forEach(e -> settings.put(e.getKey(), e.getValue()));
    return settings;
  }
}
