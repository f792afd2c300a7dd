package arbor.synthesis;

import static org.apache.spark.sql.functions.col;

import java.util.Arrays;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The {@code queries} table's columns, for the stages that read it. A query is never deleted:
 * when the paper its evidence came from changes and the evidence no longer holds, it is retired
 * ({@link #RETIRED_AT}, {@link #RETIRED_REASON} set) and kept for the record. Every reader that
 * picks queries to train or evaluate on takes {@link #active} ones only.
 */
public final class Queries {
  private Queries() {}

  public static final String QUERY_ID = "query_id";
  public static final String GROUP_ID = "group_id";
  public static final String QUESTION = "question";
  public static final String EVIDENCE = "evidence";
  public static final String TIER = "tier";
  public static final String SPLIT = "split";
  public static final String GENERATOR = "generator";
  public static final String SOURCE_ID = "source_id";
  public static final String CREATED_AT = "created_at";
  /** When the query was retired (its evidence no longer holds in its paper's current text); null while it is in use. */
  public static final String RETIRED_AT = "retired_at";
  /** Why it was retired, e.g. "evidence is no longer verbatim in the clean paragraphs of 1909.00694". */
  public static final String RETIRED_REASON = "retired_reason";

  /** The SQL condition of a query in use: {@code retired_at IS NULL}. */
  public static final String ACTIVE = RETIRED_AT + " IS NULL";

  /** The queries in use: all but the retired (a table from before retirement existed has none retired). */
  public static Dataset<Row> active(Dataset<Row> queries) {
    return Arrays.asList(queries.columns()).contains(RETIRED_AT) ? queries.where(col(RETIRED_AT).isNull()) : queries;
  }
}
