package arbor.pipelines.synthesis;

import arbor.tables.Papers;
import arbor.synthesis.EmbedPapers;
import arbor.synthesis.Embedder;
import arbor.synthesis.SynthesisRows;
import static org.apache.spark.sql.functions.col;

import arbor.conf.EmbeddingSettings;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;

/**
 * The embedding stage: papers in, rows of {@code paper_embeddings} out, for the papers whose
 * current version has no vector from the configured model yet. The model runs on the executors.
 */
public final class Embed {
  private final EmbeddingSettings settings;

  public Embed(EmbeddingSettings settings) {
    this.settings = settings;
  }

  public String model() {
    return Embedder.modelName(settings);
  }

  /** The papers (of {@code papers}) that need a vector: new, changed since embedded, or never embedded with this model. */
  public Dataset<Row> missing(Dataset<Row> papers, Dataset<Row> embeddings) {
    Dataset<Row> current = embeddings.filter(col("model").equalTo(model())).select(Papers.PAPER_ID, Papers.CONTENT_HASH);
    return papers.select(Papers.PAPER_ID, Papers.CONTENT_HASH, Papers.TITLE, Papers.ABSTRACT)
        .join(current, papers.col(Papers.PAPER_ID).equalTo(current.col(Papers.PAPER_ID))
            .and(papers.col(Papers.CONTENT_HASH).equalTo(current.col(Papers.CONTENT_HASH))), "left_anti");
  }

  public Dataset<Row> transform(Dataset<Row> toEmbed) {
    long n = toEmbed.count();
    // At least one task per core, so a small corpus does not embed on one core alone.
    long byTask = (n + settings.papersPerTask() - 1) / settings.papersPerTask();
    int partitions = (int) Math.max(1, Math.min(n, Math.max(byTask, toEmbed.sparkSession().sparkContext().defaultParallelism())));
    return toEmbed.select(Papers.PAPER_ID, Papers.CONTENT_HASH, Papers.TITLE, Papers.ABSTRACT).repartition(partitions)
        .mapPartitions(new EmbedPapers(settings), Encoders.row(SynthesisRows.EMBEDDING));
  }
}
