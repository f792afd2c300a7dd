package arbor.synthesis;

import arbor.tables.Papers;
import arbor.conf.EmbeddingSettings;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * The executor side of embedding: rows of {@link SynthesisRows#TO_EMBED} in, rows of
 * {@link SynthesisRows#EMBEDDING} out, a batch at a time, with the JVM's one model.
 */
public final class EmbedPapers implements MapPartitionsFunction<Row, Row> {
  private static final int BATCH = 32;
  private final EmbeddingSettings settings;

  public EmbedPapers(EmbeddingSettings settings) {
    this.settings = settings;
  }

  /** What is embedded for a paper: its title and abstract, cut to {@code maxChars}. */
  public static String text(String title, String abstractText, int maxChars) {
    String text = (title + "\n" + (abstractText == null ? "" : abstractText)).strip();
    return text.length() <= maxChars ? text : text.substring(0, maxChars);
  }

  @Override
  public Iterator<Row> call(Iterator<Row> papers) {
    Embedder embedder = Embedder.forSettings(settings);
    return new Iterator<>() {
      private Iterator<Row> batch = java.util.Collections.emptyIterator();

      @Override
      public boolean hasNext() {
        if (!batch.hasNext() && papers.hasNext()) batch = next(embedder);
        return batch.hasNext();
      }

      @Override
      public Row next() {
        if (!hasNext()) throw new NoSuchElementException();
        return batch.next();
      }

      private Iterator<Row> next(Embedder embedder) {
        List<Row> in = new ArrayList<>(BATCH);
        while (in.size() < BATCH && papers.hasNext()) in.add(papers.next());
        List<float[]> vectors = embedder.embed(in.stream()
            .map(r -> text(r.getAs(Papers.TITLE), r.getAs(Papers.ABSTRACT), settings.maxChars())).toList());
        Timestamp now = new Timestamp(System.currentTimeMillis());
        List<Row> out = new ArrayList<>(in.size());
        for (int i = 0; i < in.size(); i++) {
          Row r = in.get(i);
          out.add(RowFactory.create(r.getAs(Papers.PAPER_ID), embedder.name(), r.getAs(Papers.CONTENT_HASH), SynthesisRows.floats(vectors.get(i)), now));
        }
        return out.iterator();
      }
    };
  }

}
