package arbor.jobs.conf;

import arbor.conf.LearnerSettings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class LearnerConfigTest {

  @Test
  void theEmbeddedDefaultsAreTheMethodsLearnerSettings() {
    assertEquals(LearnerSettings.defaults(), ConfigLoader.load(List.of(), List.of()).learner());
  }

  @Test
  void anUnknownReductionStopsTheLoadNamingTheKey() {
    Exception e = assertThrows(Exception.class,
        () -> ConfigLoader.load(List.of(), List.of("learner.reduction=mean")));
    String all = e.getMessage() + (e.getCause() == null ? "" : e.getCause().getMessage());
    assertTrue(all.contains("learner.reduction"), all);
  }
}
