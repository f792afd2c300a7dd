package arbor.jobs.demo;

import arbor.jobs.Job;
import arbor.jobs.JobContext;
import arbor.jobs.ingest.IngestJob;
import arbor.jobs.setup.SetupJob;
import arbor.jobs.synthesize.DatasetBuilder;
import arbor.jobs.synthesize.SynthesizeJob;
import arbor.jobs.sql.TextTable;
import arbor.warehouse.Table;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code arbor demo}: the pipeline on embedded defaults, end to end as far as it exists: fetch
 * the demo corpus, ingest it, summarise the papers table, then synthesize the dataset (groups
 * and queries) from it and show a sample.
 */
public final class DemoJob implements Job {

  @Override
  public String summary() {
    return "run the pipeline on embedded defaults: setup, ingest the demo corpus, synthesize the dataset";
  }

  @Override
  public String usage() {
    return "no options; --set data_dir=... and --set warehouse=... move where it works.";
  }

  @Override
  public int run(JobContext context) throws Exception {
    long start = System.nanoTime();
    context.out().println("== demo 1/4: setup");
    if (SetupJob.setup(context, context.config().setup().packages(), true) != 0) return 1;
    context.out().println("== demo 2/4: ingest");
    Path corpus = Path.of(context.config().dataDir(), "corpus").toAbsolutePath();
    IngestJob.Summary ingest = IngestJob.ingest(context, List.of(corpus.toString()));
    if (ingest.papers() == 0) return 1;
    context.out().println("== demo 3/4: the papers table");
    var papers = context.warehouse().read(Table.PAPERS);
    papers.createOrReplaceTempView("papers");
    context.out().print(TextTable.render(context.spark().sql("""
        SELECT paper_id, title, size(clean_paragraphs) AS paragraphs, length(noisy_text) AS noisy_chars,
               length(abstract) AS abstract_chars
        FROM papers ORDER BY paper_id"""), 200));
    context.out().print(TextTable.render(context.spark().sql("""
        SELECT source, noisy_source, count(*) AS papers, sum(size(clean_paragraphs)) AS paragraphs,
               round(avg(length(noisy_text))) AS avg_noisy_chars
        FROM papers GROUP BY source, noisy_source ORDER BY source"""), 20));
    context.out().println("== demo 4/4: synthesize (embeddings, groups, queries)");
    DatasetBuilder.Summary dataset = SynthesizeJob.synthesize(context);
    if (dataset.queriesTotal() == 0) return 1;
    context.warehouse().registerViews();
    context.out().print(TextTable.render(context.spark().sql("""
        SELECT q.tier, q.generator, q.split, size(array_distinct(transform(q.evidence, e -> e.paper_id))) AS papers,
               size(g.paper_ids) AS group_size, q.question
        FROM queries q JOIN paper_groups g ON q.group_id = g.group_id
        ORDER BY q.query_id LIMIT 12"""), 200));
    context.out().printf("demo: done in %.0f s; explore with bin/arbor sql \"SELECT question, evidence FROM queries\"%n",
        (System.nanoTime() - start) / 1e9);
    return 0;
  }
}
