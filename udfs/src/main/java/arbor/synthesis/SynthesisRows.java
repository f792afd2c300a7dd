package arbor.synthesis;

import static arbor.tables.Cols.seq;

import arbor.tables.Papers;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/** The Spark side of synthesis: schemas of what tasks read and write, and Row conversions. */
public final class SynthesisRows {
  private SynthesisRows() {}

  public static final String QUERY = "query";
  public static final String DROPPED = "dropped";
  public static final String ERROR = "error";
  /** A candidate that passed the checks, and whether its evidence was found in the noisy text ({@code reason}: located, not located). */
  public static final String LOCATED = "located";
  public static final String YES = "located";
  public static final String NO = "not located";

  private static final ArrayType STRINGS = DataTypes.createArrayType(DataTypes.StringType, false);

  /** What {@link EmbedPapers} reads. */
  public static final StructType TO_EMBED = new StructType()
      .add(Papers.PAPER_ID, DataTypes.StringType, false)
      .add(Papers.CONTENT_HASH, DataTypes.StringType, false)
      .add(Papers.TITLE, DataTypes.StringType, false)
      .add(Papers.ABSTRACT, DataTypes.StringType, true);

  /** The rows of {@code paper_embeddings}. */
  public static final StructType EMBEDDING = new StructType()
      .add(Papers.PAPER_ID, DataTypes.StringType, false)
      .add("model", DataTypes.StringType, false)
      .add(Papers.CONTENT_HASH, DataTypes.StringType, false)
      .add("embedding", DataTypes.createArrayType(DataTypes.FloatType, false), false)
      .add("embedded_at", DataTypes.TimestampType, false);

  public static final StructType EVIDENCE = new StructType()
      .add(Papers.PAPER_ID, DataTypes.StringType, false)
      .add("text", DataTypes.StringType, false);

  public static final StructType SOURCE_QUESTION = new StructType()
      .add("question_id", DataTypes.StringType, false)
      .add("question", DataTypes.StringType, false)
      .add("evidence", DataTypes.createArrayType(STRINGS, false), false);

  public static final StructType MEMBER = new StructType()
      .add(Papers.PAPER_ID, DataTypes.StringType, false)
      .add(Papers.TITLE, DataTypes.StringType, false)
      .add(Papers.ABSTRACT, DataTypes.StringType, true)
      .add(Papers.CLEAN_PARAGRAPHS, STRINGS, false)
      .add(Papers.SECTIONS, STRINGS, false)
      .add(Papers.NOISY_TEXT, DataTypes.StringType, false)
      .add(Papers.SCORE, DataTypes.DoubleType, false)
      .add("questions", DataTypes.createArrayType(SOURCE_QUESTION, false), false);

  /** What {@link GenerateQueries} reads: a group with its papers in group order. */
  public static final StructType GROUP_CONTEXT = new StructType()
      .add("group_id", DataTypes.StringType, false)
      .add("seed_paper_id", DataTypes.StringType, false)
      .add("members", DataTypes.createArrayType(MEMBER, false), false);

  /** What {@link GenerateQueries} writes: a query, a dropped candidate, or a generator's error. */
  public static final StructType GENERATED = new StructType()
      .add("kind", DataTypes.StringType, false)
      .add("group_id", DataTypes.StringType, false)
      .add("generator", DataTypes.StringType, false)
      .add("query_id", DataTypes.StringType, true)
      .add("question", DataTypes.StringType, true)
      .add("evidence", DataTypes.createArrayType(EVIDENCE, false), true)
      .add("tier", DataTypes.StringType, true)
      .add("source_id", DataTypes.StringType, true)
      .add("reason", DataTypes.StringType, true);

  public static GroupContext group(Row r) {
    List<GroupContext.Member> members = new ArrayList<>();
    for (Row m : r.<Row>getList(r.fieldIndex("members"))) {
      List<GroupContext.SourceQuestion> questions = new ArrayList<>();
      for (Row q : m.<Row>getList(m.fieldIndex("questions"))) {
        List<List<String>> evidence = new ArrayList<>();
        for (scala.collection.Seq<String> annotator : q.<scala.collection.Seq<String>>getList(q.fieldIndex("evidence"))) {
          evidence.add(CollectionConverters.asJava(annotator));
        }
        questions.add(new GroupContext.SourceQuestion(q.getAs("question_id"), q.getAs("question"), evidence));
      }
      String abs = m.getAs(Papers.ABSTRACT);
      members.add(new GroupContext.Member(m.getAs(Papers.PAPER_ID), m.getAs(Papers.TITLE), abs == null ? "" : abs,
          m.getList(m.fieldIndex(Papers.CLEAN_PARAGRAPHS)), m.getList(m.fieldIndex(Papers.SECTIONS)), m.getAs(Papers.NOISY_TEXT),
          m.getAs(Papers.SCORE), questions));
    }
    return new GroupContext(r.getAs("group_id"), r.getAs("seed_paper_id"), members);
  }

  public static Row query(Query q) {
    List<Row> evidence = q.evidence().stream().map(e -> RowFactory.create(e.paperId(), e.text())).toList();
    return RowFactory.create(QUERY, q.groupId(), q.generator(), q.queryId(), q.question(), seq(evidence), q.tier().label(),
        q.sourceId(), null);
  }

  public static Row dropped(String groupId, String generator, String reason) {
    return RowFactory.create(DROPPED, groupId, generator, null, null, null, null, null, reason);
  }

  public static Row error(String groupId, String generator, String reason) {
    return RowFactory.create(ERROR, groupId, generator, null, null, null, null, null, reason);
  }

  public static Row located(String groupId, String generator, boolean located) {
    return RowFactory.create(LOCATED, groupId, generator, null, null, null, null, null, located ? YES : NO);
  }

  static scala.collection.immutable.Seq<Float> floats(float[] v) {
    List<Float> list = new ArrayList<>(v.length);
    for (float x : v) list.add(x);
    return seq(list);
  }
}
