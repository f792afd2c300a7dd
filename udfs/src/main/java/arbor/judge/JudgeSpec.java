package arbor.judge;

import arbor.conf.JudgeSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Everything an executor needs to build the configured judge, resolved once on the driver: the
 * settings, the rubric text (read from {@code judge.rubric.rubric_file}, else the jar's copy) and
 * the API key (from the environment variable the settings name).
 */
public record JudgeSpec(JudgeSettings settings, String rubric, String apiKey) implements Serializable {
  private static final String RUBRIC_RESOURCE = "conf/judge/rubric.md";

  public static JudgeSpec resolve(JudgeSettings settings, Map<String, String> env) {
    if (settings.kind() == JudgeSettings.Kind.EMBEDDED) return new JudgeSpec(settings, null, null);
    return new JudgeSpec(settings, readRubric(settings.rubric().rubricFile()), apiKey(settings.rubric().apiKeyEnv(), env));
  }

  /** A new judge; the caller closes it. */
  public RootJudge create() {
    return switch (settings.kind()) {
      case EMBEDDED -> new EmbeddedJudge(settings.embedded().cover());
      case RUBRIC -> new RubricJudge(settings.rubric(), rubric, apiKey);
    };
  }

  public String judgeName() {
    return settings.kind() == JudgeSettings.Kind.EMBEDDED ? EmbeddedJudge.NAME : RubricJudge.NAME;
  }

  static String readRubric(String file) {
    try {
      Path path = Path.of(file);
      if (Files.isRegularFile(path)) return Files.readString(path, StandardCharsets.UTF_8);
      try (InputStream in = JudgeSpec.class.getClassLoader().getResourceAsStream(RUBRIC_RESOURCE)) {
        if (in == null) {
          throw new IllegalStateException("the rubric is neither at " + path.toAbsolutePath()
              + " (judge.rubric.rubric_file) nor on the classpath as " + RUBRIC_RESOURCE);
        }
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the rubric " + file + " (judge.rubric.rubric_file)", e);
    }
  }

  private static String apiKey(String variable, Map<String, String> env) {
    if (variable == null || variable.isBlank()) return "none";
    String key = env.get(variable);
    if (key == null || key.isBlank()) {
      throw new IllegalStateException("the rubric judge needs an API key in the environment variable " + variable
          + " (judge.rubric.api_key_env; set it to \"\" for servers without keys)");
    }
    return key;
  }
}
