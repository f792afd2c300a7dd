package arbor.pipelines.judge;

import arbor.text.Interval;
import arbor.text.NormalizedText;
import arbor.conf.NoiseSettings;
import arbor.ingest.PdfNoise;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/** Two small papers with PDF-like noise, one group holding both, and queries over them. */
public final class PapersForTests {
  private PapersForTests() {}

  public static final String TITLE_A = "Recursive Readers for Scientific Evidence";
  public static final String TITLE_B = "Grammar Induction from Annotated Sentences";
  public static final List<String> A = List.of(
      "We train the policy with group relative advantages computed over eight samples per question.",
      "The judge scores precision and recall of the selected evidence on anchored scales from one to ten, "
          + "and the reward is the sum of the two scores divided by twenty.",
      "Related work covers retrieval augmented generation and long context transformers.");
  public static final List<String> B = List.of(
      "A context free grammar is induced from semantically annotated sentences of encyclopedia pages.",
      "The induced grammar parses new sentences into semantic trees that populate an ontology.");
  public static final PdfNoise NOISE = new PdfNoise(new NoiseSettings(5, 60, 1.0, 1.0, 6, true));
  public static final String NOISY_A = NOISE.apply("A", TITLE_A, "We study recursive readers.", A, A.stream().map(p -> "").toList());
  public static final String NOISY_B = NOISE.apply("B", TITLE_B, "We induce grammars.", B, B.stream().map(p -> "").toList());

  /** The noisy copy of clean text {@code clean} of paper text {@code noisy}, as a policy would cut it. */
  public static String copied(String noisy, String clean) {
    Interval at = NormalizedText.of(noisy).locate(clean).orElseThrow();
    return noisy.substring(at.start(), at.end());
  }

  public static Dataset<Row> papers(SparkSession spark) {
    StructType schema = new StructType().add("paper_id", DataTypes.StringType).add("title", DataTypes.StringType)
        .add("noisy_text", DataTypes.StringType);
    return spark.createDataFrame(List.of(RowFactory.create("A", TITLE_A, NOISY_A), RowFactory.create("B", TITLE_B, NOISY_B)), schema);
  }

  public static Dataset<Row> groups(SparkSession spark) {
    StructType schema = new StructType().add("group_id", DataTypes.StringType)
        .add("paper_ids", DataTypes.createArrayType(DataTypes.StringType));
    return spark.createDataFrame(List.<Row>of(RowFactory.create("g1", List.of("B", "A").toArray(new String[0]))), schema);
  }

  /** Queries of group g1, each with evidence from paper A: (query id, question, evidence paragraph). */
  public static Dataset<Row> queries(SparkSession spark, List<String[]> queries) {
    StructType evidence = new StructType().add("paper_id", DataTypes.StringType).add("text", DataTypes.StringType);
    StructType schema = new StructType().add("query_id", DataTypes.StringType).add("group_id", DataTypes.StringType)
        .add("question", DataTypes.StringType).add("evidence", DataTypes.createArrayType(evidence))
        .add("tier", DataTypes.StringType).add("split", DataTypes.StringType);
    List<Row> rows = queries.stream().map(q -> RowFactory.create(q[0], "g1", q[1],
        List.of(RowFactory.create("A", q[2])).toArray(new Row[0]), "singleton", "train")).toList();
    return spark.createDataFrame(rows, schema);
  }
}
