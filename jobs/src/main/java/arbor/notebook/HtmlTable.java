package arbor.notebook;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A DataFrame's first rows as an HTML table: arrays as numbered lists, structs as
 * {@code name: value} lines, nulls in italics, long texts clipped (with their full length).
 * Only the rows shown are collected to the driver.
 */
public final class HtmlTable {
  private HtmlTable() {}

  public static final int DEFAULT_ROWS = 20;
  public static final int DEFAULT_CHARS = 300;

  public static String render(Dataset<Row> df) {
    return render(df, DEFAULT_ROWS, DEFAULT_CHARS);
  }

  public static String render(Dataset<Row> df, int maxRows, int maxChars) {
    if (maxRows < 1 || maxChars < 1) {
      throw new IllegalArgumentException("maxRows and maxChars must be at least 1, got " + maxRows + " and " + maxChars);
    }
    List<Row> rows = df.limit(maxRows + 1).collectAsList();
    return render(df.schema(), rows, maxRows, maxChars);
  }

  static String render(StructType schema, List<Row> rows, int maxRows, int maxChars) {
    StringBuilder s = new StringBuilder("<table style=\"border-collapse:collapse;font-size:12px\"><thead><tr>");
    for (StructField f : schema.fields()) {
      s.append("<th style=\"text-align:left;border-bottom:1px solid #888;padding:2px 6px\">")
          .append(Html.escape(f.name())).append("</th>");
    }
    s.append("</tr></thead><tbody>");
    int shown = Math.min(rows.size(), maxRows);
    for (int r = 0; r < shown; r++) {
      Row row = rows.get(r);
      s.append("<tr>");
      for (int c = 0; c < schema.fields().length; c++) {
        s.append("<td style=\"vertical-align:top;text-align:left;border-bottom:1px solid #ddd;padding:2px 6px\">")
            .append(cell(schema.fields()[c].dataType(), row.isNullAt(c) ? null : row.get(c), maxChars))
            .append("</td>");
      }
      s.append("</tr>");
    }
    s.append("</tbody></table>");
    if (rows.size() > maxRows) s.append("<p><i>first ").append(maxRows).append(" rows shown</i></p>");
    if (rows.isEmpty()) s.append("<p><i>no rows</i></p>");
    return s.toString();
  }

  @SuppressWarnings("unchecked")
  private static String cell(DataType type, Object value, int maxChars) {
    if (value == null) return "<i>null</i>";
    if (type instanceof ArrayType a) {
      List<Object> items = list(value);
      StringBuilder s = new StringBuilder("<ol start=\"0\" style=\"margin:0;padding-left:2em\">");
      for (Object item : items) s.append("<li>").append(cell(a.elementType(), item, maxChars)).append("</li>");
      return s.append("</ol>").toString();
    }
    if (type instanceof StructType st && value instanceof Row row) {
      StringBuilder s = new StringBuilder();
      for (int i = 0; i < st.fields().length; i++) {
        if (i > 0) s.append("<br>");
        s.append("<b>").append(Html.escape(st.fields()[i].name())).append("</b>: ")
            .append(cell(st.fields()[i].dataType(), row.isNullAt(i) ? null : row.get(i), maxChars));
      }
      return s.toString();
    }
    if (type instanceof MapType m) {
      StringBuilder s = new StringBuilder();
      for (Map.Entry<Object, Object> e : scala.jdk.javaapi.CollectionConverters.asJava(
          (scala.collection.Map<Object, Object>) value).entrySet()) {
        if (!s.isEmpty()) s.append("<br>");
        s.append("<b>").append(cell(m.keyType(), e.getKey(), maxChars)).append("</b>: ")
            .append(cell(m.valueType(), e.getValue(), maxChars));
      }
      return s.toString();
    }
    return Html.escape(Html.clip(String.valueOf(value), maxChars));
  }

  private static List<Object> list(Object value) {
    if (value instanceof scala.collection.Seq<?> seq) return new ArrayList<>(scala.jdk.javaapi.CollectionConverters.asJava(seq));
    if (value instanceof List<?> l) return new ArrayList<>(l);
    if (value instanceof Object[] arr) return java.util.Arrays.asList(arr);
    throw new IllegalArgumentException("an array column holds a " + value.getClass().getName() + ", not a sequence");
  }
}
