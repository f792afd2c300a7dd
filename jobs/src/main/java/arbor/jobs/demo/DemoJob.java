package arbor.jobs.demo;

import arbor.jobs.Job;
import arbor.jobs.JobContext;
import arbor.jobs.ingest.IngestJob;
import arbor.jobs.setup.SetupJob;
import arbor.jobs.synthesize.DatasetBuilder;
import arbor.jobs.synthesize.SynthesizeJob;
import arbor.jobs.sql.TextTable;
import arbor.rlm.RlmContext;
import arbor.rlm.TreePrinter;
import arbor.rlm.TreeRunner;
import arbor.conf.RolloutSettings.SandboxMode;
import arbor.rlm.policy.PolicyKind;
import arbor.rlm.runtime.RlmRuntime;
import ai.djl.Device;
import arbor.warehouse.Table;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;

/**
 * {@code arbor demo}: the pipeline on embedded defaults, end to end as far as it exists: fetch
 * the demo corpus, ingest it, summarise the papers table, synthesize the dataset (groups and
 * queries) from it and show a sample, and run one scripted RLM tree over a few of the papers,
 * printed as it unfolds.
 */
public final class DemoJob implements Job {
  /** A question every statistics paper of the demo corpus has something to say about. */
  static final String DEMO_QUESTION = "Which data sets are used to illustrate the methods?";

  @Override
  public String summary() {
    return "run the pipeline on embedded defaults: setup, ingest the demo corpus, synthesize the dataset, one RLM tree";
  }

  @Override
  public String usage() {
    return "no options; --set data_dir=... and --set warehouse=... move where it works.";
  }

  @Override
  public int run(JobContext context) throws Exception {
    long start = System.nanoTime();
    context.out().println("== demo 1/5: setup");
    if (SetupJob.setup(context, context.config().setup().packages(), true) != 0) return 1;
    context.out().println("== demo 2/5: ingest");
    Path corpus = Path.of(context.config().dataDir(), "corpus").toAbsolutePath();
    IngestJob.Summary ingest = IngestJob.ingest(context, List.of(corpus.toString()));
    if (ingest.papers() == 0) return 1;
    context.out().println("== demo 3/5: the papers table");
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
    context.out().println("== demo 4/5: synthesize (embeddings, groups, queries)");
    DatasetBuilder.Summary dataset = SynthesizeJob.synthesize(context);
    if (dataset.queriesTotal() == 0) return 1;
    context.warehouse().registerViews();
    context.out().print(TextTable.render(context.spark().sql("""
        SELECT q.tier, q.generator, q.split, size(array_distinct(transform(q.evidence, e -> e.paper_id))) AS papers,
               size(g.paper_ids) AS group_size, q.question
        FROM queries q JOIN paper_groups g ON q.group_id = g.group_id
        WHERE q.""" + arbor.synthesis.Queries.ACTIVE + """
        ORDER BY q.query_id LIMIT 12"""), 200));
    context.out().println("== demo 5/5: one scripted RLM tree over three of the papers");
    Map<String, String> three = new LinkedHashMap<>();
    for (Row row : context.spark().sql("SELECT paper_id, noisy_text FROM papers ORDER BY paper_id LIMIT 3").collectAsList()) {
      three.put(row.getString(0), row.getString(1));
    }
    try (RlmRuntime runtime = RlmRuntime.create(context.config(), SandboxMode.WORKERS, Map.of());
        RlmRuntime.Rollout rollout = runtime.open(PolicyKind.SCRIPTED, "demo", 0, Device.cpu(),
            new TreePrinter(context.out()))) {
      TreeRunner.TreeResult tree = rollout.runner().run("demo", DEMO_QUESTION, new RlmContext.Papers(three));
      context.out().printf("demo: the tree ended %s with %d nodes; its answer: %s%n", tree.root().status().key(),
          tree.nodes().size(), tree.root().finalAnswerJson());
    }
    context.out().printf("demo: done in %.0f s; explore with bin/arbor sql \"SELECT question, evidence FROM queries\"%n",
        (System.nanoTime() - start) / 1e9);
    return 0;
  }
}
