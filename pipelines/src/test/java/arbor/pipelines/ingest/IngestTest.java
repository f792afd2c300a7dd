package arbor.pipelines.ingest;

import arbor.ingest.DistinctFiles;
import arbor.ingest.Paper;
import arbor.ingest.SourceFile;
import arbor.ingest.SourceKind;
import static org.junit.jupiter.api.Assertions.assertEquals;

import arbor.conf.IngestSettings;
import arbor.conf.NoiseSettings;
import arbor.pipelines.spark.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

class IngestTest {
  private static final IngestSettings SETTINGS =
      new IngestSettings(64, 10, 1, 0.0, new NoiseSettings(17, 84, 0.6, 0.5, 52, true));

  @Test
  void aFileWhoseTaskRunsAgainIsCountedOnce() throws Exception {
    SparkSession spark = TestSpark.spark();
    Path dir = Files.createDirectories(TestSpark.WORK.resolve("ingest-counts"));
    List<SourceFile> files = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Path md = dir.resolve("paper" + i + ".md");
      Files.writeString(md, "# Paper " + i + "\n\n**Paper ID:** p" + i + "\n\n## Abstract\n\nAn abstract.\n\n"
          + "## Method\n\nA body paragraph long enough to be a paper's text, number " + i + ".\n");
      files.add(new SourceFile(md.toUri().toString(), SourceKind.MARKDOWN, Files.size(md), null, null));
    }
    Path broken = dir.resolve("broken.pdf");
    Files.writeString(broken, "not a pdf at all");
    files.add(new SourceFile(broken.toUri().toString(), SourceKind.PDF, Files.size(broken), null, null));

    Ingest stage = new Ingest(SETTINGS);
    DistinctFiles done = new DistinctFiles();
    DistinctFiles withErrors = new DistinctFiles();
    spark.sparkContext().register(done, "test.files");
    spark.sparkContext().register(withErrors, "test.errors");
    Dataset<Row> parsed = stage.transform(stage.files(spark, files), Map.of(), done, withErrors).parsed();
    // Uncached: each action runs every parsing task again, as a retry or a rebuilt partition does.
    assertEquals(parsed.count(), parsed.count());
    assertEquals(4, done.count());
    assertEquals(Set.of(broken.toUri().toString()), withErrors.value());
  }
}
