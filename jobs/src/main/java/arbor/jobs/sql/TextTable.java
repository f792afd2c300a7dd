package arbor.jobs.sql;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** A result as a plain-text table, long cells cut so rows stay on one line. */
public final class TextTable {
  private TextTable() {}

  private static final int MAX_CELL = 48;

  public static String render(Dataset<Row> result, int limit) {
    String[] names = result.columns();
    List<Row> rows = result.limit(limit + 1).collectAsList();
    boolean more = rows.size() > limit;
    if (more) rows = rows.subList(0, limit);
    List<String[]> cells = new ArrayList<>();
    int[] width = new int[names.length];
    for (int c = 0; c < names.length; c++) width[c] = names[c].length();
    for (Row r : rows) {
      String[] line = new String[names.length];
      for (int c = 0; c < names.length; c++) {
        line[c] = cell(r.get(c));
        width[c] = Math.max(width[c], line[c].length());
      }
      cells.add(line);
    }
    StringBuilder s = new StringBuilder();
    appendLine(s, names, width);
    StringBuilder rule = new StringBuilder();
    for (int w : width) rule.append("-".repeat(w)).append("-+-");
    s.append(rule, 0, Math.max(0, rule.length() - 3)).append('\n');
    for (String[] line : cells) appendLine(s, line, width);
    s.append(rows.size()).append(" row(s)").append(more ? " shown (more exist; raise --limit)" : "").append('\n');
    return s.toString();
  }

  private static void appendLine(StringBuilder s, String[] cells, int[] width) {
    for (int c = 0; c < cells.length; c++) {
      s.append(String.format("%-" + width[c] + "s", cells[c]));
      if (c < cells.length - 1) s.append(" | ");
    }
    s.append('\n');
  }

  private static String cell(Object value) {
    String text = value == null ? "NULL" : value instanceof scala.collection.Seq<?> seq
        ? "[" + seq.mkString(", ") + "]" : String.valueOf(value);
    text = text.replace('\n', ' ').replace('\r', ' ');
    return text.length() <= MAX_CELL ? text : text.substring(0, MAX_CELL - 1) + "…";
  }
}
