package arbor.jobs.bench.rlm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * The lexical top-k baseline ("RAG"): Lucene BM25 over one paper's paragraphs, queried with the
 * question's analysed terms. Owns an in-memory index; close it when done.
 */
public final class Bm25Paragraphs implements AutoCloseable {
  /** How paragraphs and questions are cut into terms. */
  public enum Analysis {
    /** Lucene's standard tokens, lower-cased, no stop words, no stemming. */
    STANDARD,
    /** English stop words (the question's "what", "which", "the" drop out) and Porter stemming. */
    ENGLISH;

    Analyzer analyzer() {
      return this == STANDARD ? new StandardAnalyzer() : new EnglishAnalyzer();
    }
  }

  private final Analyzer analyzer;
  private final ByteBuffersDirectory dir = new ByteBuffersDirectory();
  private final DirectoryReader reader;
  private final IndexSearcher searcher;

  public Bm25Paragraphs(List<String> paragraphs) {
    this(paragraphs, Analysis.STANDARD);
  }

  public Bm25Paragraphs(List<String> paragraphs, Analysis analysis) {
    analyzer = analysis.analyzer();
    try {
      try (IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig(analyzer))) {
        for (int i = 0; i < paragraphs.size(); i++) {
          Document doc = new Document();
          doc.add(new TextField("text", paragraphs.get(i), Field.Store.NO));
          doc.add(new StoredField("i", i));
          writer.addDocument(doc);
        }
      }
      reader = DirectoryReader.open(dir);
      searcher = new IndexSearcher(reader);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Indexes of the {@code k} best paragraphs for {@code question}, best first. */
  public List<Integer> top(String question, int k) {
    try {
      BooleanQuery.Builder query = new BooleanQuery.Builder();
      try (TokenStream ts = analyzer.tokenStream("text", question)) {
        CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
        ts.reset();
        while (ts.incrementToken()) {
          query.add(new TermQuery(new Term("text", term.toString())), BooleanClause.Occur.SHOULD);
        }
        ts.end();
      }
      List<Integer> out = new ArrayList<>();
      for (ScoreDoc hit : searcher.search(query.build(), k).scoreDocs) {
        out.add(searcher.storedFields().document(hit.doc).getField("i").numericValue().intValue());
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      reader.close();
      dir.close();
      analyzer.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
