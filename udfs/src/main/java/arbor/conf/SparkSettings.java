package arbor.conf;

import java.io.Serializable;
import java.util.Map;

/**
 * How jobs get their SparkSession.
 *
 * @param mode {@code local}: Arbor configures an in-process Spark; {@code cluster}: spark-submit
 *     configured it and Arbor only adds what Delta needs where it is missing
 * @param extra further Spark settings, passed through verbatim (local mode only)
 */
public record SparkSettings(
    Mode mode,
    String master,
    String appName,
    int shufflePartitions,
    int snapshotPartitions,
    String localDir,
    boolean ui,
    Map<String, String> extra) implements Serializable {

  public enum Mode { LOCAL, CLUSTER }
}
