package arbor.pipelines.checkpoints;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import arbor.e2e.TestEnv;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.policy.checkpoint.AdamWStates;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.checkpoint.CheckpointCorruptException;
import arbor.policy.checkpoint.HfExport;
import arbor.policy.checkpoint.OptimizerState;
import arbor.policy.checkpoint.TableVersion;
import arbor.policy.files.HostTensor;
import arbor.policy.files.TensorDtype;
import arbor.policy.generate.GenerationEngine;
import arbor.policy.holder.CheckpointKey;
import arbor.policy.holder.CheckpointSource;
import arbor.policy.holder.ModelHolder;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.PolicyModel;
import arbor.policy.model.TinyModels;
import arbor.policy.train.AdamWState;
import arbor.tables.Checkpoints;
import io.delta.tables.DeltaTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointStoreTest {

  @TempDir static Path dir;
  static SparkSession spark;
  static PolicyModel policy;

  @BeforeAll
  static void setUp() throws Exception {
    spark = TestEnv.spark();
    ModelConfig c = ModelConfig.qwen3(300, 32, 64, 2, 4, 2, 8, true);
    TinyModels.write(c, 7, new TinyModels.TokenizerSource.ByteLevel(), TensorDtype.F32,
        dir.resolve("base"));
    policy = HfModelFolder.load(dir.resolve("base"), Device.cpu());
  }

  @AfterAll
  static void tearDown() {
    policy.close();
  }

  /** 4 KiB chunks: the tiny model's tensors span several; one commit per save. */
  private static CheckpointStore store(String name) {
    return store(name, Long.MAX_VALUE);
  }

  private static CheckpointStore store(String name, long commitBytes) {
    return new CheckpointStore(spark, new Warehouse(spark, dir.resolve(name).toString()),
        4096, commitBytes);
  }

  /** Moments with the awkward floats too: -0, NaN payloads, subnormals, infinities. */
  private static OptimizerState optimizer(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    List<HostTensor> moments = new ArrayList<>();
    for (var p : policy.model().parameters().entrySet()) {
      float[] v = new float[(int) p.getValue().size()];
      for (int i = 0; i < v.length; i++) {
        v[i] = Float.intBitsToFloat(r.nextInt());
      }
      v[0] = -0.0f;
      moments.add(new HostTensor("exp_avg/" + p.getKey(), TensorDtype.F32,
          p.getValue().getShape().getShape(), v));
    }
    return new OptimizerState(moments, "{\"step\":" + seed + ",\"beta1\":0.9}");
  }

  private static void assertSameBits(List<HostTensor> want, List<HostTensor> got) {
    assertEquals(want.size(), got.size());
    for (int i = 0; i < want.size(); i++) {
      assertEquals(want.get(i).name(), got.get(i).name());
      assertArrayEquals(want.get(i).shape(), got.get(i).shape());
      float[] a = want.get(i).values();
      float[] b = got.get(i).values();
      for (int j = 0; j < a.length; j++) {
        if (Float.floatToRawIntBits(a[j]) != Float.floatToRawIntBits(b[j])) {
          throw new AssertionError(want.get(i).name() + "[" + j + "]: " + a[j] + " != " + b[j]);
        }
      }
    }
  }

  @Test
  void aSavedCheckpointLoadsBackBitForBit() {
    CheckpointStore store = store("roundtrip");
    OptimizerState opt = optimizer(3);
    byte[] rng = "rng-state-bytes".getBytes(StandardCharsets.UTF_8);
    store.save("run", 3, policy, opt, rng, Map.of("extra.txt", new byte[] {1, 2, 3}));

    Checkpoint got = store.load("run", 3);
    List<HostTensor> masters = policy.model().toHostTensors();
    assertSameBits(masters, got.weights());
    assertSameBits(opt.tensors(), got.optimizer().tensors());
    assertEquals(opt.json(), got.optimizer().json());
    assertArrayEquals(rng, got.rng());
    assertArrayEquals(new byte[] {1, 2, 3}, got.files().get("extra.txt"));
    assertEquals(policy.config().toJson(),
        new String(got.files().get(HfModelFolder.CONFIG), StandardCharsets.UTF_8));
    assertArrayEquals(policy.sideFiles().get(HfModelFolder.TOKENIZER),
        got.files().get(HfModelFolder.TOKENIZER));
    assertEquals(Optional.of(3L), store.latest("run"));
  }

  @Test
  void aSaveKilledBeforeItsManifestIsInvisibleAndTheRerunLeavesOneCopy() {
    // 128 KiB commits: a save takes a few data commits and a manifest commit.
    CheckpointStore store = store("partial", 1 << 17);
    store.save("run", 1, policy, optimizer(1), new byte[0], Map.of());
    Checkpoint two = store.load("run", 1);
    store.appendDataOnly(new Checkpoint("run", 2, two.weights(), optimizer(2), new byte[0],
        two.files()));

    assertEquals(Optional.of(1L), store.latest("run"));
    assertEquals(List.of(1L), store.steps("run", TableVersion.LATEST));
    var e = assertThrows(IllegalArgumentException.class, () -> store.load("run", 2));
    assertTrue(e.getMessage().contains("no complete checkpoint at step 2"), e.getMessage());

    store.save("run", 2, policy, optimizer(2), new byte[0], Map.of());
    assertEquals(Optional.of(2L), store.latest("run"));
    long writes = spark.read().format("delta").load(store.tablePath())
        .where("run_id = 'run' AND step = 2").select(Checkpoints.WRITE_ID).distinct().count();
    assertEquals(1, writes, "the crashed write's rows are gone");
    assertSameBits(optimizer(2).tensors(), store.load("run", 2).optimizer().tensors());
  }

  @Test
  void aCorruptedChunkIsAnErrorNamingRunStepAndTensor() {
    CheckpointStore store = store("corrupt");
    store.save("run", 5, policy, OptimizerState.NONE, new byte[0], Map.of());
    String tensor = "model.embed_tokens.weight";
    // Rotate the bytes of one chunk: same length, different content.
    DeltaTable.forPath(spark, store.tablePath()).update(
        functions.expr("tensor = '" + tensor + "' AND chunk = 1"),
        Map.of(Checkpoints.DATA, functions.expr("concat(substr(data, 2), substr(data, 1, 1))")));

    var e = assertThrows(CheckpointCorruptException.class, () -> store.load("run", 5));
    assertTrue(e.getMessage().contains("checkpoint run step 5"), e.getMessage());
    assertTrue(e.getMessage().contains("'" + tensor + "'"), e.getMessage());
    assertTrue(e.getMessage().contains("SHA-256"), e.getMessage());
  }

  @Test
  void timeTravelReadsTheCheckpointAsItWasAtAnEarlierTableVersion() {
    CheckpointStore store = store("travel");
    long first = store.save("run", 1, policy, optimizer(10), new byte[] {1}, Map.of());
    long firstMillis = DeltaTable.forPath(spark, store.tablePath()).history()
        .where("version = " + first).select("timestamp").first().getTimestamp(0).getTime();
    store.save("run", 1, policy, optimizer(11), new byte[] {2}, Map.of());
    store.save("run", 2, policy, optimizer(12), new byte[] {3}, Map.of());

    assertArrayEquals(new byte[] {2}, store.load("run", 1).rng());
    assertArrayEquals(new byte[] {1},
        store.load("run", 1, new TableVersion.AsOfVersion(first)).rng());
    assertArrayEquals(new byte[] {1},
        store.load("run", 1, new TableVersion.AsOfTimestamp(firstMillis)).rng());
    assertEquals(Optional.of(1L), store.latest("run", new TableVersion.AsOfVersion(first)));
    assertEquals(Optional.of(2L), store.latest("run"));
  }

  @Test
  void anExecutorLoadsTheCheckpointFromTheWarehouseWithIdenticalLogits() {
    CheckpointStore store = store("executor");
    store.save("run", 4, policy, optimizer(4), new byte[0], Map.of());
    CheckpointSource source = store.source();
    float[] want = logits(policy);

    // In a Spark task: only the serialised source travels, and no SparkSession is used there.
    List<float[]> got = JavaSparkContext.fromSparkContext(spark.sparkContext())
        .parallelize(List.of(0), 1).map(i -> {
          ModelHolder holder = new ModelHolder(Device.cpu(), source,
              new GenerationEngine.Options(2, 16));
          try (ModelHolder.Lease lease = holder.acquire(new CheckpointKey("run", 4))) {
            return logits(lease.policy());
          } finally {
            holder.close();
          }
        }).collect();
    assertArrayEquals(want, got.get(0));
  }

  @Test
  void adamWStateRoundTripsThroughTheStore() {
    CheckpointStore store = store("adamw");
    Map<String, float[]> m = new java.util.LinkedHashMap<>();
    Map<String, float[]> v = new java.util.LinkedHashMap<>();
    for (HostTensor t : optimizer(6).tensors()) {
      String name = t.name().substring("exp_avg/".length());
      m.put(name, t.values());
      v.put(name, t.values().clone());
    }
    AdamWState state = new AdamWState(17, m, v);
    store.save("run", 6, policy, AdamWStates.toOptimizerState(state), new byte[0], Map.of());

    AdamWState back = AdamWStates.fromOptimizerState(store.load("run", 6).optimizer());
    assertEquals(17, back.step());
    assertEquals(m.keySet(), back.firstMoments().keySet());
    for (String name : m.keySet()) {
      assertArrayEquals(m.get(name), back.firstMoments().get(name), name);
      assertArrayEquals(v.get(name), back.secondMoments().get(name), name);
    }
  }

  @Test
  void exportWritesAnHfFolderAndReportsHowFarBf16IsFromTheMasters() throws Exception {
    CheckpointStore store = store("export");
    // Masters a BF16 export must round: the tiny model's F32 weights plus an lr-1e-6-sized step.
    List<HostTensor> masters = new ArrayList<>();
    for (HostTensor t : policy.model().toHostTensors()) {
      float[] w = t.values().clone();
      for (int i = 0; i < w.length; i++) {
        w[i] += 1e-6f;
      }
      masters.add(new HostTensor(t.name(), TensorDtype.F32, t.shape(), w));
    }
    Map<String, byte[]> files = new java.util.HashMap<>(policy.sideFiles());
    files.put(HfModelFolder.CONFIG, policy.config().toJson().getBytes(StandardCharsets.UTF_8));
    store.save(new Checkpoint("run", 9, masters, OptimizerState.NONE, new byte[0], files));
    String warehouse = "warehouse=" + dir.resolve("export");

    Path f32 = dir.resolve("export-f32");
    var out = new java.io.ByteArrayOutputStream();
    var err = new java.io.ByteArrayOutputStream();
    int code = arbor.jobs.Main.run(new String[] {"export", "--set", warehouse, "--run", "run",
        "--out", f32.toString()}, new java.io.PrintStream(out, true), new java.io.PrintStream(err, true));
    assertEquals(0, code, err.toString());
    assertTrue(out.toString().contains("= 0 (exact)"), out.toString());
    try (PolicyModel exported = HfModelFolder.load(f32, Device.cpu())) {
      assertSameBits(masters, exported.model().toHostTensors());
    }

    Path bf16 = dir.resolve("export-bf16");
    out.reset();
    code = arbor.jobs.Main.run(new String[] {"export", "--set", warehouse, "--run", "run",
        "--step", "9", "--dtype", "bf16", "--out", bf16.toString()},
        new java.io.PrintStream(out, true), new java.io.PrintStream(err, true));
    assertEquals(0, code, err.toString());
    System.out.print(out);
    HfExport.Report r = HfExport.write(store.load("run", 9), dir.resolve("export-bf16-again"),
        TensorDtype.BF16);
    assertTrue(r.maxAbsDiff() > 0 && r.maxAbsDiff() < 1e-2, "bf16 rounding: " + r.maxAbsDiff());
    assertTrue(out.toString().contains("bfloat16"), out.toString());
    assertTrue(out.toString().contains(String.format(java.util.Locale.ROOT, "%.3g", r.maxAbsDiff())),
        out.toString());
    assertEquals("bfloat16", HfModelFolder.readConfig(bf16).torchDtype());
    try (PolicyModel exported = HfModelFolder.load(bf16, Device.cpu())) {
      assertEquals(TensorDtype.BF16, exported.model().toHostTensors().get(0).dtype());
    }
  }

  static float[] logits(PolicyModel p) {
    try (NDManager work = p.model().newWorkManager()) {
      NDArray tokens = work.create(new long[] {1, 5, 9, 42, 7, 250}).reshape(1, 6);
      return p.model().forward(tokens).toFloatArray();
    }
  }
}
