package arbor.policy.holder;

import arbor.conf.DjlPolicySettings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.Device;
import arbor.policy.files.TensorDtype;
import arbor.policy.generate.GenerationEngine;
import arbor.policy.generate.SamplingParams;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.PolicyModel;
import arbor.policy.model.TinyModels;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelHolderTest {

  @TempDir static Path root;

  /** Counts loads; delegates to per-run HF folders. */
  record CountingSource(HfFolderSource folders, AtomicInteger loads) implements CheckpointSource {
    @Override
    public PolicyModel load(CheckpointKey key, Device device) throws IOException {
      loads.incrementAndGet();
      return folders.load(key, device);
    }
  }

  @BeforeAll
  static void writeCheckpoints() throws IOException {
    ModelConfig c = ModelConfig.qwen3(300, 16, 32, 1, 2, 1, 8, true);
    for (int v = 1; v <= 2; v++) {
      TinyModels.write(c, v, new TinyModels.TokenizerSource.ByteLevel(), TensorDtype.F32,
          root.resolve("run").resolve("v" + v));
    }
  }

  private static ModelHolder holder(AtomicInteger loads) {
    return new ModelHolder(Device.cpu(), new CountingSource(HfFolderSource.perRun(root), loads),
        new GenerationEngine.Options(4, 32));
  }

  @Test
  void concurrentTasksShareOneLoad() throws Exception {
    AtomicInteger loads = new AtomicInteger();
    ModelHolder holder = holder(loads);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<PolicyModel>> got = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      got.add(pool.submit(() -> {
        start.await();
        try (ModelHolder.Lease lease = holder.acquire(new CheckpointKey("run", 1))) {
          lease.engine().generate(new int[] {1, 2, 3}, SamplingParams.greedy(3, Set.of()));
          return lease.policy();
        }
      }));
    }
    start.countDown();
    PolicyModel first = got.get(0).get();
    for (Future<PolicyModel> f : got) {
      assertSame(first, f.get());
    }
    pool.shutdown();
    assertEquals(1, loads.get());
    holder.close();
  }

  @Test
  void askingForANewVersionSwapsAndTheOldOneLivesUntilReleased() {
    AtomicInteger loads = new AtomicInteger();
    ModelHolder holder = holder(loads);
    ModelHolder.Lease old = holder.acquire(new CheckpointKey("run", 1));
    try (ModelHolder.Lease fresh = holder.acquire(new CheckpointKey("run", 2))) {
      assertEquals(new CheckpointKey("run", 2), holder.currentKey());
      assertEquals(2, loads.get());
      // The task holding v1 can still finish its rollout.
      assertEquals(2, old.engine().generate(new int[] {4, 5}, SamplingParams.greedy(2, Set.of()))
          .tokenIds().length);
      fresh.engine().generate(new int[] {4, 5}, SamplingParams.greedy(2, Set.of()));
    }
    GenerationEngine v1 = old.engine();
    old.close();
    // Released and retired: v1's engine is closed.
    assertThrows(IllegalStateException.class,
        () -> v1.submit(new int[] {1}, SamplingParams.greedy(1, Set.of())));
    try (ModelHolder.Lease again = holder.acquire(new CheckpointKey("run", 2))) {
      assertEquals(new CheckpointKey("run", 2), again.key());
      assertEquals(2, loads.get());  // still loaded, not reloaded
    }
    holder.close();
  }

  @Test
  void aMissingCheckpointFailsWithItsKeyAndFolder() {
    ModelHolder holder = holder(new AtomicInteger());
    var e = assertThrows(RuntimeException.class,
        () -> holder.acquire(new CheckpointKey("run", 9)));
    assertEquals(true, e.getMessage().contains("run") && e.getMessage().contains("v9"),
        e.getMessage());
  }

  @Test
  void theBaseModelLoadsFromAHadoopUriAndAMissingOneIsNamed() throws IOException {
    // Version 0 is policy.djl.model_dir; a file: URI goes through Hadoop's file systems (a plain
    // Path.of would take "file:" for part of a relative path).
    Path v1 = root.resolve("run").resolve("v1");
    String uri = v1.toUri().toString();
    ModelHolder holder = new ModelHolder(Device.cpu(), new PolicyVersions(uri, null, new DjlPolicySettings.Cache(root.resolve("cache").toString(), 50)), new GenerationEngine.Options(4, 32));
    try (ModelHolder.Lease lease = holder.acquire(PolicyVersions.key("any-run", 0));
        PolicyModel direct = arbor.policy.model.HfModelFolder.load(v1, Device.cpu())) {
      assertEquals(direct.config(), lease.policy().config());
      var fromUri = lease.policy().model().toHostTensors();
      var fromPath = direct.model().toHostTensors();
      assertEquals(fromPath.size(), fromUri.size());
      for (int i = 0; i < fromPath.size(); i++) {
        assertEquals(fromPath.get(i).name(), fromUri.get(i).name());
        org.junit.jupiter.api.Assertions.assertArrayEquals(fromPath.get(i).values(), fromUri.get(i).values());
      }
      assertEquals(2, lease.engine().generate(new int[] {1, 2}, SamplingParams.greedy(2, Set.of())).tokenIds().length);
    } finally {
      holder.close();
    }
    String missing = root.resolve("no-such-model").toUri().toString();
    ModelHolder none = new ModelHolder(Device.cpu(), new PolicyVersions(missing, null, new DjlPolicySettings.Cache(root.resolve("cache").toString(), 50)), GenerationEngine.Options.defaults());
    var e = assertThrows(RuntimeException.class, () -> none.acquire(PolicyVersions.key("any-run", 0)));
    assertEquals(true, e.getMessage().contains(missing) && e.getMessage().contains("does not exist"), e.getMessage());
  }

  @Test
  void oneDeviceServesOneSourcePerJvm() {
    var opts = GenerationEngine.Options.defaults();
    ModelHolder a = ModelHolder.shared(Device.cpu(), HfFolderSource.fixed(root), opts);
    assertSame(a, ModelHolder.shared(Device.cpu(), HfFolderSource.fixed(root), opts));
    assertThrows(IllegalStateException.class,
        () -> ModelHolder.shared(Device.cpu(), HfFolderSource.perRun(root), opts));
    a.close();
  }

  @Test
  void runsServedOnlyFromTheirCheckpointsShareTheHolderWhateverTheBaseFolder() {
    var opts = GenerationEngine.Options.defaults();
    var runs = new RunCheckpoints(HfFolderSource.perRun(root));
    var cache = new DjlPolicySettings.Cache(root.resolve("cache").toString(), 50);
    ModelHolder a = ModelHolder.shared(Device.cpu(), new PolicyVersions("/students/a", runs, cache), opts);
    try {
      // The base folder is never read when the runs' checkpoints serve version 0 too.
      assertSame(a, ModelHolder.shared(Device.cpu(), new PolicyVersions("/students/b", runs, null), opts));
      try (ModelHolder.Lease lease = a.acquire(new CheckpointKey("run", 1))) {
        assertEquals(new CheckpointKey("run", 1), lease.key());
      }
      // Where version 0 is the base folder, two folders are two policies.
      assertThrows(IllegalStateException.class,
          () -> ModelHolder.shared(Device.cpu(), new PolicyVersions("/students/b", null, null), opts));
    } finally {
      a.close();
    }
  }

  @Test
  void aTaskWithoutGpusRunsOnTheCpu() {
    assertEquals(Device.cpu(), SparkTaskDevice.current());  // not inside a Spark task
    assertEquals(Device.cpu(), Devices.forTask(null));
    assertEquals(Device.gpu(1), Devices.forTask(new String[] {"1", "2"}));
  }
}
