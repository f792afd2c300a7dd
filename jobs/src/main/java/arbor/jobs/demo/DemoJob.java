package arbor.jobs.demo;

import arbor.jobs.Job;
import arbor.jobs.JobContext;
import arbor.jobs.ingest.IngestJob;
import arbor.jobs.setup.SetupJob;
import arbor.jobs.sql.TextTable;
import arbor.warehouse.Table;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code arbor demo}: the pipeline on embedded defaults, end to end as far as it exists: fetch
 * the demo corpus, ingest it, and summarise the papers table.
 */
public final class DemoJob implements Job {

  @Override
  public String summary() {
    return "run the pipeline on embedded defaults: setup, ingest the demo corpus, summarise the papers";
  }

  @Override
  public String usage() {
    return "no options; --set data_dir=... and --set warehouse=... move where it works.";
  }

  @Override
  public int run(JobContext context) throws Exception {
    long start = System.nanoTime();
    context.out().println("== demo 1/3: setup");
    if (SetupJob.setup(context, context.config().setup().packages(), true) != 0) return 1;
    context.out().println("== demo 2/3: ingest");
    Path corpus = Path.of(context.config().dataDir(), "corpus").toAbsolutePath();
    IngestJob.Summary ingest = IngestJob.ingest(context, List.of(corpus.toString()));
    if (ingest.papers() == 0) return 1;
    context.out().println("== demo 3/3: the papers table");
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
    context.out().printf("demo: done in %.0f s; explore with bin/arbor sql \"SELECT title, abstract FROM papers\"%n",
        (System.nanoTime() - start) / 1e9);
    return 0;
  }
}
