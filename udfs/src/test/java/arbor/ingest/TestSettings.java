package arbor.ingest;

import arbor.conf.IngestSettings;
import arbor.conf.NoiseSettings;

/** The ingest settings of conf/defaults.conf, for tests that do not load configuration. */
public final class TestSettings {
  private TestSettings() {}

  public static NoiseSettings noise() {
    return new NoiseSettings(17, 84, 0.6, 0.5, 52, true);
  }

  public static IngestSettings ingest() {
    return new IngestSettings(64, 200, 2, 0.0, noise());
  }
}
