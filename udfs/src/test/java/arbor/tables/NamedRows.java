package arbor.tables;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.types.StructType;

/** Rows as a table hands them back: with their schema, so that a record reads them by column name. */
final class NamedRows {
  private NamedRows() {}

  static Row named(Row row, StructType schema) {
    Object[] values = new Object[row.size()];
    for (int i = 0; i < values.length; i++) values[i] = row.get(i);
    return new GenericRowWithSchema(values, schema);
  }
}
