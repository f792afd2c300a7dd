package arbor.pipelines.spark;

import arbor.conf.SparkSettings;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/** The one local SparkSession of a pipelines test JVM, and a scratch folder for Delta tables. */
public final class TestSpark {
  private TestSpark() {}

  public static final Path WORK = Path.of("target/test-data").toAbsolutePath();
  private static SparkSession spark;

  public static synchronized SparkSession spark() {
    if (spark == null) {
      spark = Sessions.open(new SparkSettings(SparkSettings.Mode.LOCAL, "local[2]", "arbor-pipelines-test", 2, 2,
          WORK.resolve("spark").toString(), false,
          // Interpreted expressions, as the end-to-end tests' session: no code generated and
          // compiled per query for a few rows.
          Map.of("spark.sql.codegen.wholeStage", "false", "spark.sql.codegen.factoryMode", "NO_CODEGEN")));
    }
    return spark;
  }
}
