package arbor.jobs.refresh;

import arbor.conf.SynthesisSettings;
import arbor.jobs.cli.Args;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import arbor.jobs.ingest.IngestJob;
import arbor.jobs.synthesize.DatasetBuilder;
import arbor.jobs.synthesize.SynthesizeJob;
import arbor.pipelines.synthesis.Seeds;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import java.sql.Timestamp;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code arbor refresh}: the scheduled, incremental update of the dataset. Ingests new or changed
 * papers, embeds only those, seeds new groups from them alone ({@code refresh.seed_fraction} of
 * them), and generates queries for the new groups only. Existing rows and ids never change and
 * every write is a Delta MERGE, so readers (a training job) always see a consistent snapshot and
 * a second run in a row changes nothing. Each run is a row of {@code refresh_runs}.
 */
public final class RefreshJob implements Job {

  static final StructType RUN = new StructType()
      .add("run_id", DataTypes.StringType, false)
      .add("started_at", DataTypes.TimestampType, false)
      .add("finished_at", DataTypes.TimestampType, true)
      .add("status", DataTypes.StringType, false)
      .add("papers_read", DataTypes.LongType, true)
      .add("papers_new", DataTypes.LongType, true)
      .add("papers_changed", DataTypes.LongType, true)
      .add("papers_embedded", DataTypes.LongType, true)
      .add("groups_new", DataTypes.LongType, true)
      .add("queries_new", DataTypes.LongType, true)
      .add("dropped", DataTypes.LongType, true)
      .add("queries_retired", DataTypes.LongType, true)
      .add("errors", DataTypes.LongType, true)
      .add("message", DataTypes.StringType, true);

  @Override
  public String summary() {
    return "incremental dataset update for schedules: new papers, new groups, new queries";
  }

  @Override
  public String usage() {
    return """
        options:
          --papers PATH...  where new papers arrive (default: synthesis.refresh.papers)
        reads and writes: papers, source_questions, ingest_errors, paper_embeddings, paper_groups,
        queries, synthesis_errors; logs each run in refresh_runs. Safe to run from cron at any
        frequency, and while other jobs read the tables (conf/schedules/, docs/operations.md).""";
  }

  @Override
  public int run(JobContext context) throws Exception {
    Args args = Args.parse("refresh", context.args(), Set.of(), Set.of("papers"));
    if (!args.positionals().isEmpty()) throw new UsageError("refresh: unexpected arguments " + args.positionals() + " (use --papers)");
    SynthesisSettings s = context.config().synthesis();
    SynthesizeJob.checkGenerators(s);
    List<String> paths = args.values("papers").isEmpty() ? s.refresh().papers() : args.values("papers");
    if (paths.isEmpty()) throw new UsageError("refresh: no papers to read: give --papers PATH... or set synthesis.refresh.papers");
    refresh(context, paths);
    return 0;
  }

  /** One refresh; a failure is logged in refresh_runs with its message, then rethrown. */
  public static DatasetBuilder.Summary refresh(JobContext context, List<String> paths) throws Exception {
    Warehouse warehouse = context.warehouse();
    String runId = UUID.randomUUID().toString();
    Timestamp started = new Timestamp(System.currentTimeMillis());
    log(context, RowFactory.create(runId, started, null, "running", null, null, null, null, null, null, null, null, null, null));
    try {
      IngestJob.Summary ingest = IngestJob.ingest(context, paths);
      DatasetBuilder builder = new DatasetBuilder(context);
      long embeddedCount = builder.embedMissing();
      long retired = builder.retireStale();
      // The candidates are the papers not yet considered as seeds, read from the table: this
      // run's new and changed papers, and any a crashed run embedded but never seeded.
      Dataset<Row> seeds = Seeds.fraction(builder.unseeded(), context.config().synthesis().refresh().seedFraction(),
          context.config().synthesis().seed());
      DatasetBuilder.Summary summary = builder.build(seeds, embeddedCount, retired);
      builder.markSeeded();
      builder.print(summary);
      log(context, RowFactory.create(runId, started, now(), "succeeded", ingest.papers(), ingest.inserted(), ingest.updated(),
          embeddedCount, summary.groupsNew(), summary.queriesNew(), summary.dropped(), retired, summary.errors(), null));
      context.out().println("refresh: run " + runId + " succeeded (bin/arbor sql \"SELECT * FROM refresh_runs ORDER BY started_at\")");
      return summary;
    } catch (Exception e) {
      log(context, RowFactory.create(runId, started, now(), "failed", null, null, null, null, null, null, null, null, null,
          String.valueOf(e)));
      throw e;
    }
  }

  private static Timestamp now() {
    return new Timestamp(System.currentTimeMillis());
  }

  private static void log(JobContext context, Row run) {
    Warehouse warehouse = context.warehouse();
    warehouse.upsert(Table.REFRESH_RUNS, context.spark().createDataFrame(List.of(run), RUN), "true");
  }
}
