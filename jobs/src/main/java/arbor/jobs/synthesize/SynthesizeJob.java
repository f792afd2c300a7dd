package arbor.jobs.synthesize;

import arbor.conf.SynthesisSettings;
import arbor.jobs.cli.Args;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import arbor.synthesis.LlmGenerator;
import arbor.pipelines.synthesis.Seeds;
import arbor.pipelines.warehouse.Table;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * {@code arbor synthesize}: the evidence-selection dataset from the {@code papers} table. Embeds
 * the papers, draws {@code ceil(target_queries / queries_per_group)} seed papers, groups each with
 * its nearest neighbours, and generates each group's queries. Deterministic for a given
 * {@code synthesis.seed}; a second run finds every group already there and changes nothing.
 */
public final class SynthesizeJob implements Job {

  @Override
  public String summary() {
    return "embed the papers, group them, and generate the queries of the dataset";
  }

  @Override
  public String usage() {
    return """
        no options; the settings are the synthesis.* keys (conf/defaults.conf), e.g.
          --set synthesis.target_queries=200 --set 'synthesis.generators=[offline]'
        reads: papers, source_questions (for the human generator)
        writes: paper_embeddings, paper_groups, queries (and retires those whose evidence no longer
        holds), synthesis_errors
        exit code 1 when there are no papers or no query could be made.""";
  }

  @Override
  public int run(JobContext context) throws Exception {
    Args args = Args.parse("synthesize", context.args(), Set.of(), Set.of());
    if (!args.positionals().isEmpty()) throw new UsageError("synthesize: takes no arguments, got " + args.positionals());
    checkGenerators(context.config().synthesis());
    if (!context.warehouse().exists(Table.PAPERS)) {
      throw new UsageError("synthesize: no papers table under " + context.warehouse().root() + "; run bin/arbor ingest first");
    }
    DatasetBuilder.Summary summary = synthesize(context);
    return summary.queriesTotal() > 0 ? 0 : 1;
  }

  public static DatasetBuilder.Summary synthesize(JobContext context) {
    SynthesisSettings s = context.config().synthesis();
    DatasetBuilder builder = new DatasetBuilder(context);
    long embedded = builder.embedMissing();
    long retired = builder.retireStale();
    long seeds = (s.targetQueries() + s.queriesPerGroup() - 1) / s.queriesPerGroup();
    Dataset<Row> drawn = Seeds.draw(builder.vectors(), seeds, s.seed());
    DatasetBuilder.Summary summary = builder.build(drawn, embedded, retired);
    // Every paper was a candidate of this draw: none is left for a refresh to seed.
    builder.markSeeded();
    builder.print(summary);
    return summary;
  }

  /** Configuration mistakes a run would only find on the executors. */
  public static void checkGenerators(SynthesisSettings s) {
    for (String g : s.generators()) {
      if (!Set.of("offline", "human", "llm").contains(g)) {
        throw new UsageError("synthesis.generators: unknown generator '" + g + "'; the generators are offline, human, llm");
      }
    }
    if (s.generators().contains(LlmGenerator.NAME)) {
      try {
        LlmGenerator.apiKey(s.llm(), System.getenv());
      } catch (IllegalStateException e) {
        throw new UsageError(e.getMessage());
      }
    }
    try {
      arbor.synthesis.Embedder.modelName(s.embedding());
    } catch (IllegalArgumentException e) {
      throw new UsageError(e.getMessage());
    }
  }
}
