package arbor.rlm.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import arbor.conf.ApiKeys;
import arbor.conf.ArborConfig;
import arbor.conf.PolicyKind;
import arbor.conf.RolloutSettings.SandboxMode;
import arbor.jobs.conf.ConfigError;
import arbor.jobs.conf.ConfigLoader;
import arbor.policy.files.TensorDtype;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.TinyModels;
import arbor.rlm.NodeStatus;
import arbor.rlm.RlmContext;
import arbor.rlm.TreeRunner;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runtime of a JVM: one per configuration, policies built from it, djl by version. */
class RlmRuntimeTest {
  static final String REPO = System.getProperty("arbor.repo", "..");

  static ArborConfig config(String... settings) {
    List<String> all = new java.util.ArrayList<>(List.of("rlm.prompt_dir=" + Path.of(REPO, "conf", "prompts")));
    all.addAll(List.of(settings));
    return ConfigLoader.load(List.of(), all);
  }

  @AfterAll
  static void close() {
    SharedRuntimes.closeAll();
  }

  @Test
  void everyTaskOfAJvmGetsTheSameRuntimeForOneConfiguration() {
    ArborConfig c = config();
    RlmRuntime a = SharedRuntimes.of(c, SandboxMode.IN_PROCESS, null, ApiKeys.NONE);
    assertSame(a, SharedRuntimes.of(config(), SandboxMode.IN_PROCESS, null, ApiKeys.NONE));
    try (RlmRuntime.Rollout r = a.open(PolicyKind.SCRIPTED, "run", 0, Device.cpu())) {
      TreeRunner.TreeResult tree = r.runner().run("t", "Which results?",
          new RlmContext.Single("A Paper\nAbstract\nThe alpha results improve by 3 points."));
      assertEquals(NodeStatus.FINAL, tree.root().status());
    }
  }

  @Test
  void theDjlPolicyLoadsVersionZeroFromTheModelFolderAndRefusesLaterVersionsWithoutACheckpointSource(
      @TempDir Path dir) throws Exception {
    TinyModels.write(ModelConfig.qwen3(300, 32, 64, 2, 4, 2, 8, true), 3, new TinyModels.TokenizerSource.ByteLevel(),
        TensorDtype.F32, dir);
    RlmRuntime runtime = SharedRuntimes.of(config("policy.djl.model_dir=" + dir, "policy.djl.sampling.max_new_tokens=4",
        "rlm.max_turns=1"), SandboxMode.IN_PROCESS, null, ApiKeys.NONE);
    try (RlmRuntime.Rollout one = runtime.open(PolicyKind.DJL, "run-1", 0, Device.cpu());
        RlmRuntime.Rollout other = runtime.open(PolicyKind.DJL, "run-2", 0, Device.cpu())) {
      TreeRunner.TreeResult tree = one.runner().run("t", "q", new RlmContext.Single("text"));
      assertEquals(1, tree.root().turns().size());
      // Version 0 is the base model of every run: one engine serves both.
      assertTrue(other.engineStats().orElseThrow().decodeTokens() >= 1);
    }
    java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class,
        () -> runtime.open(PolicyKind.DJL, "run-1", 3, Device.cpu()));
    assertTrue(e.getMessage().contains("version 3") && e.getMessage().contains("no checkpoint source"), e.getMessage());
  }

  @Test
  void theRolloutKeysAreCheckedOnLoad() {
    assertEquals(PolicyKind.DJL, config().rollouts().policy());
    assertEquals(8, config().rollouts().samples());
    assertEquals(PolicyKind.SCRIPTED, config("rollouts.policy=scripted").rollouts().policy());
    ConfigError bad = assertThrows(ConfigError.class, () -> config("rollouts.max_infra_failure_fraction=1.5"));
    assertTrue(bad.getMessage().contains("rollouts.max_infra_failure_fraction"), bad.getMessage());
    assertThrows(ConfigError.class, () -> config("rollouts.policy=oracle"));
  }
}
