package arbor.notebook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class HtmlTableTest {
  private static final StructType EVIDENCE = new StructType().add("paper_id", DataTypes.StringType).add("text", DataTypes.StringType);
  private static final StructType SCHEMA = new StructType()
      .add("query_id", DataTypes.StringType)
      .add("n", DataTypes.IntegerType)
      .add("evidence", DataTypes.createArrayType(EVIDENCE));

  private static Row row(String id, Integer n, List<Row> evidence) {
    return RowFactory.create(id, n, evidence == null ? null : scala.jdk.javaapi.CollectionConverters.asScala(evidence).toSeq());
  }

  @Test
  void textIsEscapedSoAQuestionCannotInjectMarkup() {
    String html = HtmlTable.render(SCHEMA, List.of(row("<script>x</script>", 1, List.of())), 5, 100);
    assertFalse(html.contains("<script>"));
    assertTrue(html.contains("&lt;script&gt;x&lt;/script&gt;"));
  }

  @Test
  void arraysOfStructsBecomeNumberedListsOfNamedFields() {
    String html = HtmlTable.render(SCHEMA, List.of(row("q1", 2, List.of(RowFactory.create("p1", "first"), RowFactory.create("p2", "second")))), 5, 100);
    assertTrue(html.contains("<ol start=\"0\""), html);
    assertTrue(html.contains("<li><b>paper_id</b>: p1<br><b>text</b>: first</li>"), html);
    assertTrue(html.contains("<b>paper_id</b>: p2"), html);
  }

  @Test
  void nullsAreShownAsNullNotAsEmptyCells() {
    String html = HtmlTable.render(SCHEMA, List.of(row("q1", null, null)), 5, 100);
    assertEquals(2, html.split("<i>null</i>", -1).length - 1);
  }

  @Test
  void longTextsAreClippedWithTheirFullLength() {
    String html = HtmlTable.render(SCHEMA, List.of(row("x".repeat(50), 1, List.of())), 5, 10);
    assertTrue(html.contains("xxxxxxxxxx\u2026 (50 chars)"), html);
  }

  @Test
  void onlyMaxRowsAreShownAndTheCutIsSaid() {
    List<Row> three = List.of(row("a", 1, List.of()), row("b", 2, List.of()), row("c", 3, List.of()));
    String html = HtmlTable.render(SCHEMA, three, 2, 100);
    assertEquals(3, html.split("<tr>", -1).length - 1, "header row and two data rows");
    assertTrue(html.contains("first 2 rows shown"));
    assertFalse(html.contains(">c<"));
  }
}
