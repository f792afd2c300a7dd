package arbor.jobs.conf;

import arbor.conf.ArborConfig;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueFactory;
import java.io.File;
import java.util.List;
import java.util.function.DoublePredicate;

/**
 * Loads the configuration tree once: {@code conf/defaults.conf} (inside the jar), then each
 * {@code --conf} in order (a file, or the name of a profile shipped in the jar: {@code local},
 * {@code cluster}, {@code gpu}), then each {@code --set key=value}; later wins. Substitutions
 * resolve after merging, so {@code --set data_dir=/x} moves everything derived from it.
 */
public final class ConfigLoader {
  private ConfigLoader() {}

  public static final List<String> PROFILES = List.of("local", "cluster", "gpu", "demo", "learning");
  private static final String DEFAULTS = "conf/defaults.conf";

  public static ArborConfig load(List<String> confFiles, List<String> sets) {
    Config merged = ConfigFactory.parseResources(DEFAULTS, ConfigParseOptions.defaults().setAllowMissing(false));
    try {
      for (String file : confFiles) merged = parseConf(file).withFallback(merged);
      for (String set : sets) merged = parseSet(set).withFallback(merged);
      Config resolved = merged.resolve();
      ArborConfig config = RecordBinder.bind(resolved, ArborConfig.class);
      validate(resolved);
      return config;
    } catch (ConfigException e) {
      throw new ConfigError("configuration error: " + e.getMessage(), e);
    }
  }

  private static Config parseConf(String name) {
    File file = new File(name);
    if (file.isFile()) return ConfigFactory.parseFile(file, ConfigParseOptions.defaults().setAllowMissing(false));
    if (PROFILES.contains(name)) {
      return ConfigFactory.parseResources("conf/" + name + ".conf", ConfigParseOptions.defaults().setAllowMissing(false));
    }
    throw new ConfigError("no such configuration file: '" + name + "' (give a path, or one of the profiles " + PROFILES + ")");
  }

  private static Config parseSet(String assignment) {
    int eq = assignment.indexOf('=');
    if (eq <= 0) throw new ConfigError("--set takes key=value, got '" + assignment + "'");
    String key = assignment.substring(0, eq).strip();
    String text = assignment.substring(eq + 1).strip();
    String origin = "--set " + assignment;
    ConfigValue value;
    // A list, an object or a quoted string ("" for an empty one: --set k="" reaches Java with its
    // quotes when the shell did not take them) is HOCON.
    boolean quoted = text.length() >= 2 && text.startsWith("\"") && text.endsWith("\"");
    if (text.startsWith("[") || text.startsWith("{") || quoted) {
      value = ConfigFactory.parseString("v = " + text, ConfigParseOptions.defaults().setOriginDescription(origin)).getValue("v");
    } else {
      // Plain text stays a string; the binder converts it to the key's type, or says why not.
      value = ConfigValueFactory.fromAnyRef(text, origin);
    }
    try {
      return ConfigFactory.empty().withValue(key, value);
    } catch (ConfigException.BadPath e) {
      throw new ConfigError("--set: '" + key + "' is not a valid key: " + e.getMessage(), e);
    }
  }

  /** Ranges the types alone do not capture. */
  private static void validate(Config c) {
    atLeast(c, "spark.shuffle_partitions", 1);
    atLeast(c, "spark.snapshot_partitions", 1);
    atLeast(c, "ingest.max_file_mb", 1);
    atLeast(c, "ingest.min_text_chars", 0);
    atLeast(c, "ingest.files_per_task", 1);
    atLeast(c, "ingest.noise.line_width", 20);
    atLeast(c, "ingest.noise.lines_per_page", 5);
    check(c, "ingest.noise.hyphenation", v -> v >= 0 && v <= 1, "a probability between 0 and 1");
    check(c, "ingest.noise.ligatures", v -> v >= 0 && v <= 1, "a probability between 0 and 1");
    atLeast(c, "synthesis.target_queries", 1);
    atLeast(c, "synthesis.queries_per_group", 1);
    atLeast(c, "synthesis.embedding.max_chars", 1);
    atLeast(c, "synthesis.embedding.papers_per_task", 1);
    check(c, "synthesis.groups.max_size", v -> v >= 1 && v <= 100, "between 1 and 100");
    check(c, "synthesis.groups.min_similarity", v -> v >= -1 && v <= 1, "a cosine similarity between -1 and 1");
    check(c, "synthesis.groups.tie_margin", v -> v > 0 && v <= 1, "above 0 and at most 1");
    check(c, "synthesis.groups.lsh_bucket_length", v -> v > 0, "above 0");
    atLeast(c, "synthesis.groups.lsh_hashes_per_band", 1);
    atLeast(c, "synthesis.groups.lsh_bands", 1);
    atLeast(c, "synthesis.splits.validation", 0);
    atLeast(c, "synthesis.splits.test", 0);
    atLeast(c, "synthesis.splits.sft", 0);
    atLeast(c, "synthesis.offline.max_section_paragraphs", 1);
    atLeast(c, "synthesis.offline.max_evidence", 1);
    atLeast(c, "synthesis.llm.context_tokens", 100);
    atLeast(c, "synthesis.llm.timeout_seconds", 1);
    atLeast(c, "synthesis.llm.attempts", 1);
    atLeast(c, "synthesis.llm.backoff_millis", 0);
    check(c, "synthesis.refresh.seed_fraction", v -> v >= 0 && v <= 1, "a fraction between 0 and 1");
    validatePolicies(c);
    validateRuntime(c);
    validateJudge(c);
    check(c, "sft.lr", v -> v > 0, "above 0");
    atLeast(c, "sft.epochs", 1);
    atLeast(c, "sft.micro_batch_tokens", 1);
    atLeast(c, "sft.samples", 1);
    atLeast(c, "sft.max_sample_tokens", 2);
  }

  private static void validateJudge(Config c) {
    atLeast(c, "judge.concurrency", 1);
    check(c, "judge.embedded.cover", v -> v > 0 && v <= 1, "a share above 0 and at most 1");
    check(c, "judge.rubric.temperature", v -> v >= 0 && v <= 2, "between 0 and 2");
    atLeast(c, "judge.rubric.max_tokens", 16);
    check(c, "judge.rubric.timeout_seconds", v -> v > 0, "above 0");
    atLeast(c, "judge.rubric.attempts", 1);
    atLeast(c, "judge.rubric.backoff_millis", 0);
    atLeast(c, "judge.rubric.max_span_chars", 100);
  }

  private static void validateRuntime(Config c) {
    atLeast(c, "repl.max_output_chars", 100);
    atLeast(c, "sandbox.workers", 1);
    atLeast(c, "sandbox.sessions_per_worker", 1);
    atLeast(c, "sandbox.worker_heap_mb", 128);
    atLeast(c, "sandbox.cells_per_worker", 0);
    atLeast(c, "rlm.max_turns", 1);
    atLeast(c, "rlm.max_depth", 0);
    atLeast(c, "rlm.max_children", 0);
    atLeast(c, "rlm.max_nodes", 1);
    atLeast(c, "rlm.max_tokens_per_tree", 1);
    atLeast(c, "rollouts.samples", 1);
    atLeast(c, "train.steps", 1);
    atLeast(c, "train.queries_per_step", 1);
    atLeast(c, "train.eval_every", 0);
    atLeast(c, "train.progress_seconds", 1);
    atLeast(c, "rollouts.trees_per_task", 1);
    check(c, "rollouts.max_infra_failure_fraction", v -> v >= 0 && v <= 1, "a fraction in [0, 1]");
  }

  private static void validatePolicies(Config c) {
    atLeast(c, "policy.djl.torch_threads", 0);
    atLeast(c, "policy.djl.engine.max_batch", 1);
    atLeast(c, "policy.djl.engine.prefill_chunk", 1);
    atLeast(c, "policy.djl.engine.kv_budget_mb", 1);
    atLeast(c, "policy.djl.engine.block_size", 1);
    atLeast(c, "policy.djl.sampling.temperature", 0);
    check(c, "policy.djl.sampling.top_p", v -> v > 0 && v <= 1, "a nucleus mass in (0, 1]");
    atLeast(c, "policy.djl.sampling.top_k", 0);
    atLeast(c, "policy.djl.sampling.max_new_tokens", 1);
    for (String api : new String[] {"openai", "anthropic"}) {
      atLeast(c, "policy." + api + ".temperature", 0);
      atLeast(c, "policy." + api + ".max_tokens", 1);
      check(c, "policy." + api + ".timeout_seconds", v -> v > 0, "seconds > 0");
      atLeast(c, "policy." + api + ".max_retries", 0);
    }
  }

  private static void atLeast(Config c, String key, int min) {
    check(c, key, v -> v >= min, "at least " + min);
  }

  private static void check(Config c, String key, DoublePredicate ok, String expected) {
    double v = c.getDouble(key);
    if (!ok.test(v)) {
      throw new ConfigError("key '" + key + "' " + RecordBinder.where(c.getValue(key).origin())
          + ": expected " + expected + ", got " + c.getValue(key).unwrapped());
    }
  }
}
