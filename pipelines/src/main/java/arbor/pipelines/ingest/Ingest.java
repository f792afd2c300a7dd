package arbor.pipelines.ingest;

import arbor.tables.Papers;
import arbor.ingest.DistinctFiles;
import arbor.ingest.IngestRows;
import arbor.ingest.ParseFiles;
import arbor.ingest.SourceFile;
import static org.apache.spark.sql.functions.*;

import arbor.conf.IngestSettings;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;

/**
 * The ingest stage: input files in, the rows of {@code papers}, {@code source_questions} and
 * {@code ingest_errors} out. Parsing happens on the executors, a few files per task; the driver
 * only lists files and plans.
 */
public final class Ingest {

  /** The stage's three outputs, all derived from one parse of the files. */
  public record Output(Dataset<Row> parsed, Dataset<Row> papers, Dataset<Row> questions, Dataset<Row> errors) {}

  private final IngestSettings settings;

  public Ingest(IngestSettings settings) {
    this.settings = settings;
  }

  /** The files as a DataFrame of {@link IngestRows#FILE}, split a few files per task. */
  public Dataset<Row> files(SparkSession spark, List<SourceFile> files) {
    List<Row> rows = files.stream().map(IngestRows::file).toList();
    int partitions = Math.max(1, (files.size() + settings.filesPerTask() - 1) / settings.filesPerTask());
    return spark.createDataFrame(rows, IngestRows.FILE).repartition(partitions);
  }

  /**
   * Parses {@code files} on the executors. {@code filesDone} and {@code filesWithErrors} (registered
   * accumulators) tell the driver's console how far it is.
   */
  public Output transform(Dataset<Row> files, Map<String, String> hadoopSettings,
      DistinctFiles filesDone, DistinctFiles filesWithErrors) {
    Dataset<Row> parsed = files.mapPartitions(
        new ParseFiles(settings, hadoopSettings, filesDone, filesWithErrors), Encoders.row(IngestRows.PARSED));
    return split(parsed);
  }

  /**
   * Splits parsed rows into the three tables. A paper id read twice keeps its first reading (by
   * path) and reports the others as errors; a question read twice (the same QASPER question in
   * two files) keeps one.
   */
  public static Output split(Dataset<Row> parsed) {
    WindowSpec byPaper = Window.partitionBy(Papers.PAPER_ID).orderBy("path");
    Dataset<Row> ranked = parsed.filter(col("kind").equalTo(IngestRows.PAPER)).select("paper.*")
        .withColumn("_rank", row_number().over(byPaper))
        .withColumn("_first", first("path").over(byPaper));
    Dataset<Row> papers = ranked.filter(col("_rank").equalTo(1)).drop("_rank", "_first")
        .withColumn(Papers.INGESTED_AT, current_timestamp());
    Dataset<Row> duplicates = ranked.filter(col("_rank").gt(1)).select(
        col("source"), col("path"),
        concat(lit("duplicate paper_id '"), col(Papers.PAPER_ID), lit("': already read from "), col("_first")).as("reason"));
    Dataset<Row> questions = parsed.filter(col("kind").equalTo(IngestRows.QUESTION)).select("question.*")
        .dropDuplicates("question_id");
    Dataset<Row> errors = parsed.filter(col("kind").equalTo(IngestRows.ERROR)).select("error.*")
        .unionByName(duplicates)
        .dropDuplicates("source", "path")
        .withColumn("at", current_timestamp());
    return new Output(parsed, papers, questions, errors);
  }
}
