package arbor.pipelines.spark;

import arbor.conf.SparkSettings;
import java.nio.file.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/**
 * The one place SparkSessions are made. In local mode it configures everything an in-process
 * Spark needs here (loopback networking, Delta, small shuffles, project-owned folders); in
 * cluster mode it leaves spark-submit's settings alone and only adds Delta's two settings where
 * they are missing.
 */
public final class Sessions {
  private Sessions() {}

  private static final String DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension";
  private static final String DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog";

  public static SparkSession open(SparkSettings settings) {
    SparkConf conf = new SparkConf();
    if (settings.mode() == SparkSettings.Mode.LOCAL) {
      Path localDir = Path.of(settings.localDir()).toAbsolutePath();
      conf.setMaster(settings.master())
          .setAppName(settings.appName())
          // Spark otherwise binds to the first non-loopback address, which may not route.
          .set("spark.driver.host", "127.0.0.1")
          .set("spark.driver.bindAddress", "127.0.0.1")
          .set("spark.sql.shuffle.partitions", Integer.toString(settings.shufflePartitions()))
          .set("spark.default.parallelism", Integer.toString(settings.shufflePartitions()))
          // Delta reads its log with 50 partitions by default: minutes of overhead on 2 cores.
          .set("spark.databricks.delta.snapshotPartitions", Integer.toString(settings.snapshotPartitions()))
          .set("spark.local.dir", localDir.resolve("spark").toString())
          .set("spark.sql.warehouse.dir", localDir.resolve("spark-warehouse").toString())
          .set("spark.ui.enabled", Boolean.toString(settings.ui()))
          .set("spark.ui.showConsoleProgress", "false")
          .set("spark.sql.extensions", DELTA_EXTENSION)
          .set("spark.sql.catalog.spark_catalog", DELTA_CATALOG);
      settings.extra().forEach(conf::set);
    } else {
      conf.setIfMissing("spark.app.name", settings.appName())
          .setIfMissing("spark.sql.extensions", DELTA_EXTENSION)
          .setIfMissing("spark.sql.catalog.spark_catalog", DELTA_CATALOG);
      settings.extra().forEach(conf::setIfMissing);
    }
    return SparkSession.builder().config(conf).getOrCreate();
  }
}
