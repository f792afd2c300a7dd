package arbor.ingest;

import static arbor.tables.Cols.seq;

import arbor.tables.Cols;
import arbor.tables.Papers;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The Spark side of ingest's records: their schemas and Row conversions. Parsing yields one row
 * per item, tagged by {@code kind}, with the matching struct set and the others null, so that
 * one pass over the files feeds the three tables.
 */
public final class IngestRows {
  private IngestRows() {}

  public static final String PAPER = "paper";
  public static final String QUESTION = "question";
  public static final String ERROR = "error";

  private static final ArrayType STRINGS = DataTypes.createArrayType(DataTypes.StringType, false);

  public static final StructType FILE = new StructType()
      .add("path", DataTypes.StringType, false)
      .add("kind", DataTypes.StringType, false)
      .add("size_bytes", DataTypes.LongType, false)
      .add("paper_id", DataTypes.StringType, true)
      .add("companion", DataTypes.StringType, true);

  public static final StructType PAPER_STRUCT = new StructType()
      .add(Papers.PAPER_ID, DataTypes.StringType, false)
      .add(Papers.TITLE, DataTypes.StringType, false)
      .add(Papers.ABSTRACT, DataTypes.StringType, false)
      .add(Papers.SOURCE, DataTypes.StringType, false)
      .add(Papers.PATH, DataTypes.StringType, false)
      .add(Papers.CLEAN_PARAGRAPHS, STRINGS, false)
      .add(Papers.SECTIONS, STRINGS, false)
      .add(Papers.NOISY_TEXT, DataTypes.StringType, false)
      .add(Papers.NOISY_SOURCE, DataTypes.StringType, false)
      .add(Papers.SCORE, DataTypes.DoubleType, false)
      .add(Papers.CONTENT_HASH, DataTypes.StringType, false);

  public static final StructType QUESTION_STRUCT = new StructType()
      .add("paper_id", DataTypes.StringType, false)
      .add("question_id", DataTypes.StringType, false)
      .add("question", DataTypes.StringType, false)
      .add("evidence", DataTypes.createArrayType(STRINGS, false), false)
      .add("answerable", DataTypes.BooleanType, false)
      .add("path", DataTypes.StringType, false);

  public static final StructType ERROR_STRUCT = new StructType()
      .add("source", DataTypes.StringType, false)
      .add("path", DataTypes.StringType, false)
      .add("reason", DataTypes.StringType, false);

  public static final StructType PARSED = new StructType()
      .add("kind", DataTypes.StringType, false)
      .add(PAPER, PAPER_STRUCT, true)
      .add(QUESTION, QUESTION_STRUCT, true)
      .add(ERROR, ERROR_STRUCT, true);

  public static Row file(SourceFile f) {
    return RowFactory.create(f.path(), f.kind().name(), f.sizeBytes(), f.paperId(), f.companion());
  }

  public static SourceFile file(Row r) {
    return new SourceFile(r.getString(0), SourceKind.valueOf(r.getString(1)), r.getLong(2), r.getString(3), r.getString(4));
  }

  static Row paper(Paper p) {
    Row struct = RowFactory.create(p.paperId(), p.title(), p.abstractText(), p.source(), p.path(),
        seq(p.cleanParagraphs()), seq(p.sections()), p.noisyText(), p.noisySource(), p.score(), p.contentHash());
    return RowFactory.create(PAPER, struct, null, null);
  }

  static Row question(SourceQuestion q) {
    Row struct = RowFactory.create(q.paperId(), q.questionId(), q.question(),
        seq(q.evidence().stream().map(Cols::seq).toList()), q.answerable(), q.path());
    return RowFactory.create(QUESTION, null, struct, null);
  }

  static Row error(IngestError e) {
    return RowFactory.create(ERROR, null, null, RowFactory.create(e.source(), e.path(), e.reason()));
  }
}
