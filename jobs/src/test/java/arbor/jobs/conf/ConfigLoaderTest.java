package arbor.jobs.conf;

import arbor.conf.ArborConfig;
import arbor.conf.SparkSettings;
import arbor.conf.SplitSettings;
import arbor.conf.SynthesisSettings;
import arbor.rlm.sandbox.WorkerPoolConfig;
import arbor.rlm.sandbox.SandboxLimits;
import arbor.rlm.RlmLimits;
import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path dir;

  private Path conf(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text);
  }

  @Test
  void defaultsLoadIntoTheTypedTree() {
    ArborConfig c = ConfigLoader.load(List.of(), List.of());
    assertEquals("data/warehouse", c.warehouse());
    assertEquals(SparkSettings.Mode.LOCAL, c.spark().mode());
    assertEquals("data/tmp", c.spark().localDir());
    assertEquals(17, c.ingest().noise().seed());
    assertTrue(c.setup().packages().contains("r-cran-tsp"));
  }

  @Test
  void profilesFilesAndSetsApplyInOrderAndSubstitutionsFollow() throws Exception {
    Path mine = conf("mine.conf", "data_dir = /srv/arbor\ningest.max_file_mb = 5\n");
    ArborConfig c = ConfigLoader.load(List.of("cluster", mine.toString()), List.of("ingest.max_file_mb=7", "spark.extra={a.b = 1}"));
    assertEquals(SparkSettings.Mode.CLUSTER, c.spark().mode());
    assertEquals("/srv/arbor/tmp", c.spark().localDir(), "local_dir derives from data_dir after merging");
    assertEquals(7, c.ingest().maxFileMb(), "--set wins over files");
    assertEquals(java.util.Map.of("a.b", "1"), c.spark().extra());
  }

  @Test
  void unknownKeyNamesTheKeyTheFileAndLineAndTheValidKeys() throws Exception {
    Path bad = conf("bad.conf", "ingest {\n  max_file_mbs = 3\n}\n");
    ConfigError e = assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(bad.toString()), List.of()));
    assertTrue(e.getMessage().contains("unknown key 'ingest.max_file_mbs' (" + bad + ":2)"), e.getMessage());
    assertTrue(e.getMessage().contains("max_file_mb"), "lists the keys that exist: " + e.getMessage());
  }

  @Test
  void wrongTypeNamesTheKeyTheFileAndTheExpectedType() throws Exception {
    Path bad = conf("bad.conf", "spark.shuffle_partitions = many\n");
    ConfigError e = assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(bad.toString()), List.of()));
    assertEquals("key 'spark.shuffle_partitions' (" + bad + ":1): expected an integer, got string \"many\"", e.getMessage());
  }

  @Test
  void wrongTypeFromSetSaysItCameFromSet() {
    ConfigError e = assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(), List.of("ingest.noise.drop_math=perhaps")));
    assertTrue(e.getMessage().startsWith("key 'ingest.noise.drop_math' (--set ingest.noise.drop_math=perhaps): expected true or false"), e.getMessage());
  }

  @Test
  void enumValuesAreChecked() {
    ConfigError e = assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(), List.of("spark.mode=yarn")));
    assertTrue(e.getMessage().contains("expected one of [local, cluster]"), e.getMessage());
  }

  @Test
  void rangesAreChecked() {
    ConfigError e = assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(), List.of("ingest.noise.hyphenation=1.5")));
    assertTrue(e.getMessage().contains("expected a probability between 0 and 1, got 1.5"), e.getMessage());
  }

  @Test
  void synthesisSettingsLoadWithTheirDefaultsAndRanges() {
    SynthesisSettings s = ConfigLoader.load(List.of(), List.of("synthesis.generators=[llm, offline]")).synthesis();
    assertEquals(1000, s.targetQueries());
    assertEquals(List.of("llm", "offline"), s.generators());
    assertEquals("all-minilm-l6-v2-q", s.embedding().model());
    assertEquals(new SplitSettings(10, 128, 32, new SplitSettings.Shares(0.1, 0.2, 0.1)), s.splits());
    assertEquals("OPENAI_API_KEY", s.llm().apiKeyEnv(), "the config names the variable, never holds the key");
    ConfigError e = assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(), List.of("synthesis.refresh.seed_fraction=2")));
    assertTrue(e.getMessage().contains("'synthesis.refresh.seed_fraction'"), e.getMessage());
    assertTrue(e.getMessage().contains("a fraction between 0 and 1"), e.getMessage());
  }

  @Test
  void aQuotedSetValueIsTheStringInsideItsQuotes() {
    // As a program (or a shell that kept the quotes) passes it: the key's value is empty, not two quote marks.
    ArborConfig c = ConfigLoader.load(List.of(), List.of("judge.rubric.api_key_env=\"\"", "judge.rubric.model=\"gpt x\""));
    assertEquals("", c.judge().rubric().apiKeyEnv());
    assertEquals("gpt x", c.judge().rubric().model());
    assertEquals("a\"b", ConfigLoader.load(List.of(), List.of("judge.rubric.model=a\"b")).judge().rubric().model());
  }

  @Test
  void missingFileAndMalformedSetAreClearErrors() throws Exception {
    assertTrue(assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of("nope.conf"), List.of()))
        .getMessage().startsWith("no such configuration file: 'nope.conf'"));
    assertTrue(assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(), List.of("novalue")))
        .getMessage().startsWith("--set takes key=value"));
    Path broken = conf("broken.conf", "ingest { max_file_mb = \n");
    assertTrue(assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(broken.toString()), List.of()))
        .getMessage().contains("broken.conf"));
  }

  @Test
  void runtimeLimitsBindWithDurationsAndBecomeTheRuntimeRecords() {
    ArborConfig c = ConfigLoader.load(List.of(), List.of("repl.cell_wall_time=5s", "rlm.on_max_turns=ask", "sandbox.workers=3"));
    assertEquals(java.time.Duration.ofSeconds(5), SandboxLimits.of(c.repl()).cellWallTime());
    assertEquals(arbor.conf.OnMaxTurns.ASK, RlmLimits.of(c.rlm(), c.repl()).onMaxTurns());
    assertEquals(20_000, RlmLimits.of(c.rlm(), c.repl()).maxOutputChars());
    assertEquals(3, WorkerPoolConfig.of(c.sandbox()).workers());
    assertEquals(java.time.Duration.ofMinutes(10), c.rlm().treeWallTime());
    assertFalse(RlmLimits.of(c.rlm(), c.repl()).bindQuestion(), "the published method binds no question");
    ArborConfig bound = ConfigLoader.load(List.of(), List.of("rlm.bind_question=true"));
    assertTrue(RlmLimits.of(bound.rlm(), bound.repl()).bindQuestion());
  }

  @Test
  void aDurationThatIsNotOneSaysWhatADurationLooksLike() {
    ConfigError e = assertThrows(ConfigError.class, () -> ConfigLoader.load(List.of(), List.of("rlm.tree_wall_time=soon")));
    assertTrue(e.getMessage().contains("key 'rlm.tree_wall_time' (--set rlm.tree_wall_time=soon): expected a duration"), e.getMessage());
  }
}
