package arbor.tables;

import java.util.List;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;

/** Column names and types that several step tables share. */
public final class Cols {
  private Cols() {}

  public static final String RUN_ID = "run_id";
  public static final String STEP = "step";
  public static final String NODE_ID = "node_id";
  public static final String TURN = "turn";
  public static final String QUERY_ID = "query_id";
  /** Which of the query's G samples (0..G-1) a tree is. */
  public static final String SAMPLE = "sample";
  public static final String ROOT_ID = "root_id";
  public static final String POLICY_VERSION = "policy_version";
  public static final String PROMPT_IDS = "prompt_ids";
  public static final String RESPONSE_IDS = "response_ids";
  public static final String LOGPROBS = "logprobs";

  public static final ArrayType INTS = DataTypes.createArrayType(DataTypes.IntegerType, false);
  public static final ArrayType FLOATS = DataTypes.createArrayType(DataTypes.FloatType, false);
  public static final ArrayType STRINGS = DataTypes.createArrayType(DataTypes.StringType, false);

  /** A list as the Scala sequence a Spark row holds for an array column. */
  public static <T> scala.collection.immutable.Seq<T> seq(List<T> list) {
    return scala.jdk.javaapi.CollectionConverters.asScala(list).toSeq();
  }
}
