package arbor.pipelines.synthesis;

import arbor.synthesis.Evidence;
import arbor.synthesis.SplitPlan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.pipelines.spark.TestSpark;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** Evidence widened to its whole paragraphs, so that part of a paragraph and all of it are one split key. */
class EvidenceParagraphsTest {
  static final SparkSession SPARK = TestSpark.spark();
  static final String WHOLE = "We train on the WMT corpus. It holds 4.2 million sentence pairs.";

  @Test
  void partOfAParagraphAndAllOfItShareTheirSplitKey() {
    Dataset<Row> papers = SPARK.createDataFrame(List.of(
        RowFactory.create("p1", new String[] {"An opening paragraph.", WHOLE}),
        RowFactory.create("p2", new String[] {"Only paragraph of p2."})),
        new StructType().add("paper_id", DataTypes.StringType).add("clean_paragraphs", DataTypes.createArrayType(DataTypes.StringType)));
    StructType evidence = new StructType().add("paper_id", DataTypes.StringType).add("text", DataTypes.StringType);
    Dataset<Row> queries = SPARK.createDataFrame(List.of(
        // An annotator marked one sentence of the paragraph, and text no paper holds.
        RowFactory.create("part", "g1", "How big is the corpus?", new Row[] {RowFactory.create("p1", "It holds 4.2 million sentence pairs."),
            RowFactory.create("p9", "Text of a paper not in the table.")}),
        // Another query, over an overlapping group, has the whole paragraph and another one.
        RowFactory.create("whole", "g2", "Which corpus is used?", new Row[] {RowFactory.create("p2", "Only paragraph of p2."),
            RowFactory.create("p1", WHOLE)})),
        new StructType().add("query_id", DataTypes.StringType).add("group_id", DataTypes.StringType)
            .add("question", DataTypes.StringType).add("evidence", DataTypes.createArrayType(evidence)));

    Map<String, Row> widened = new TreeMap<>();
    for (Row r : EvidenceParagraphs.widen(queries, papers).collectAsList()) widened.put(r.getAs("query_id"), r);
    assertEquals(Set.of("part", "whole"), widened.keySet());
    assertEquals("g1", widened.get("part").getAs("group_id"), "other columns are kept");
    assertEquals(List.of("p1 " + WHOLE, "p9 Text of a paper not in the table."), texts(widened.get("part")), "in order; unheld text as it was");
    assertEquals(List.of("p2 Only paragraph of p2.", "p1 " + WHOLE), texts(widened.get("whole")));

    // As written, the two queries share no key, and could land in two splits; widened, they do.
    assertFalse(shareAKey(queries.collectAsList()));
    assertTrue(shareAKey(List.copyOf(widened.values())));
  }

  private static List<String> texts(Row query) {
    return query.<Row>getList(query.fieldIndex("evidence")).stream().map(e -> e.getString(0) + " " + e.getString(1)).toList();
  }

  private static boolean shareAKey(List<Row> queries) {
    Set<String> seen = new HashSet<>();
    boolean shared = false;
    for (Row q : queries) {
      List<Evidence> ev = q.<Row>getList(q.fieldIndex("evidence")).stream().map(e -> new Evidence(e.getString(0), e.getString(1))).toList();
      for (String key : SplitPlan.keys(q.getAs("question"), ev)) shared |= !seen.add(key);
    }
    return shared;
  }
}
