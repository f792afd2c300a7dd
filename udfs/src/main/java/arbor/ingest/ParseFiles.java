package arbor.ingest;

import arbor.conf.IngestSettings;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;

/**
 * The executor side of ingest: parses the files of one partition (rows of
 * {@link IngestRows#FILE}) into rows of {@link IngestRows#PARSED}. Files are read through
 * Hadoop's file system, so paths may be local, HDFS, S3 or any other Hadoop URI; the driver
 * ships its Hadoop settings as a plain map.
 */
public final class ParseFiles implements MapPartitionsFunction<Row, Row> {
  private final IngestSettings settings;
  private final Map<String, String> hadoopSettings;
  private final DistinctFiles filesDone;
  private final DistinctFiles filesWithErrors;

  public ParseFiles(IngestSettings settings, Map<String, String> hadoopSettings,
      DistinctFiles filesDone, DistinctFiles filesWithErrors) {
    this.settings = settings;
    this.hadoopSettings = Map.copyOf(hadoopSettings);
    this.filesDone = filesDone;
    this.filesWithErrors = filesWithErrors;
  }

  @Override
  public Iterator<Row> call(Iterator<Row> files) {
    Configuration hadoop = new Configuration(false);
    hadoopSettings.forEach(hadoop::set);
    FileParser parser = new FileParser(settings);
    FileParser.Bytes bytes = path -> read(hadoop, path);
    // One file at a time, so a partition of large PDFs never holds all their rows at once.
    return new Iterator<>() {
      private Iterator<Row> current = java.util.Collections.emptyIterator();

      @Override
      public boolean hasNext() {
        while (!current.hasNext() && files.hasNext()) {
          SourceFile file = IngestRows.file(files.next());
          current = rows(file, parser.parse(file, bytes));
        }
        return current.hasNext();
      }

      @Override
      public Row next() {
        if (!hasNext()) throw new java.util.NoSuchElementException();
        return current.next();
      }
    };
  }

  private Iterator<Row> rows(SourceFile file, Parsed parsed) {
    List<Row> out = new ArrayList<>();
    parsed.papers().forEach(p -> out.add(IngestRows.paper(p)));
    parsed.questions().forEach(q -> out.add(IngestRows.question(q)));
    parsed.errors().forEach(e -> out.add(IngestRows.error(e)));
    filesDone.add(file.path());
    if (!parsed.errors().isEmpty()) filesWithErrors.add(file.path());
    return out.iterator();
  }

  private static byte[] read(Configuration hadoop, String path) throws IOException {
    Path p = new Path(path);
    try (InputStream in = p.getFileSystem(hadoop).open(p)) {
      return in.readAllBytes();
    }
  }
}
