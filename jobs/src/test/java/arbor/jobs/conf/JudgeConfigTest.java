package arbor.jobs.conf;

import arbor.conf.AdvantageSettings;
import arbor.conf.ArborConfig;
import arbor.conf.JudgeSettings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The judge and advantages sections: defaults, overrides and range checks that name the key. */
class JudgeConfigTest {

  @Test
  void theDefaultsAreTheEmbeddedJudgeAndTheTreeReduction() {
    ArborConfig c = ConfigLoader.load(List.of(), List.of());
    assertEquals(JudgeSettings.Kind.EMBEDDED, c.judge().kind());
    assertEquals(0.5, c.judge().embedded().cover());
    assertEquals(0.0, c.judge().rubric().temperature());
    assertEquals(JudgeSettings.RubricSettings.ResponseFormat.JSON_SCHEMA, c.judge().rubric().responseFormat());
    assertEquals("conf/judge/rubric.md", c.judge().rubric().rubricFile());
    assertEquals(AdvantageSettings.Reduction.TREE, c.advantages().reduction());
    assertFalse(c.advantages().oneChild());
  }

  @Test
  void setsChooseTheRubricJudgeTokenMeanAndOneChild() {
    ArborConfig c = ConfigLoader.load(List.of(), List.of("judge.kind=rubric", "judge.rubric.response_format=json_object",
        "advantages.reduction=token_mean", "advantages.one_child=true", "advantages.seed=3"));
    assertEquals(JudgeSettings.Kind.RUBRIC, c.judge().kind());
    assertEquals(JudgeSettings.RubricSettings.ResponseFormat.JSON_OBJECT, c.judge().rubric().responseFormat());
    assertEquals(AdvantageSettings.Reduction.TOKEN_MEAN, c.advantages().reduction());
    assertTrue(c.advantages().oneChild());
    assertEquals(3, c.advantages().seed());
  }

  @Test
  void outOfRangeJudgeValuesNameTheirKey() {
    ConfigError cover = assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(), List.of("judge.embedded.cover=0")));
    assertTrue(cover.getMessage().contains("judge.embedded.cover"), cover.getMessage());
    ConfigError attempts = assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(), List.of("judge.rubric.attempts=0")));
    assertTrue(attempts.getMessage().contains("judge.rubric.attempts"), attempts.getMessage());
    ConfigError kind = assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(), List.of("judge.kind=oracle")));
    assertTrue(kind.getMessage().contains("judge.kind"), kind.getMessage());
  }
}
