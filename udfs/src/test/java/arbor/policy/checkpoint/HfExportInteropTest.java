package arbor.policy.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import arbor.policy.files.HostTensor;
import arbor.policy.files.TensorDtype;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.PolicyModel;
import arbor.policy.model.TinyModels;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An exported folder read by code that is not Arbor's: DJL's safetensors reader
 * ({@link NDList#decode}) for the F32 and F16 weights, the Hugging Face tokenizers library for
 * the tokenizer, and the safetensors byte layout itself for BF16 (which DJL's CPU build cannot
 * hold: a BF16 NDArray aborts the JVM). The config must carry what {@code transformers} reads to
 * build the architecture.
 */
class HfExportInteropTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  static ModelConfig config;
  static Checkpoint checkpoint;
  static Map<String, HostTensor> masters;

  @BeforeAll
  static void masters() throws Exception {
    config = TinyModels.write(ModelConfig.qwen3(300, 32, 64, 2, 4, 2, 8, true), 5,
        new TinyModels.TokenizerSource.ByteLevel(), TensorDtype.F32, dir.resolve("base"));
    // Masters that no narrower dtype holds exactly: random low bits on every weight, and a few
    // values F16 meets only as subnormals.
    SplittableRandom r = new SplittableRandom(3);
    List<HostTensor> weights = new ArrayList<>();
    try (PolicyModel base = HfModelFolder.load(dir.resolve("base"), Device.cpu())) {
      for (HostTensor t : base.model().toHostTensors()) {
        float[] v = t.values().clone();
        for (int i = 0; i < v.length; i++) v[i] += (float) (r.nextDouble(-1, 1) * 1e-6);
        if (v.length > 3) {
          v[0] = 3e-6f;
          v[1] = -7e-8f;
        }
        weights.add(new HostTensor(t.name(), TensorDtype.F32, t.shape(), v));
      }
      Map<String, byte[]> files = new HashMap<>(base.sideFiles());
      files.put(HfModelFolder.CONFIG, Files.readAllBytes(dir.resolve("base").resolve(HfModelFolder.CONFIG)));
      checkpoint = new Checkpoint("run", 4, weights, OptimizerState.NONE, new byte[0], files);
    }
    masters = new LinkedHashMap<>();
    weights.forEach(w -> masters.put(w.name(), w));
  }

  @AfterAll
  static void done() {
    checkpoint = null;
  }

  /** Every tensor of one safetensors file, through DJL, widened to F32 by DJL. */
  private static Map<String, float[]> djl(Path file, DataType expected, NDManager m) throws Exception {
    Map<String, float[]> out = new LinkedHashMap<>();
    NDList list;
    try (InputStream in = Files.newInputStream(file)) {
      list = NDList.decode(m, in);
    }
    for (NDArray a : list) {
      assertEquals(expected, a.getDataType(), a.getName());
      HostTensor master = masters.get(a.getName());
      assertTrue(master != null, "DJL read a tensor the masters do not have: " + a.getName());
      assertArrayEquals(master.shape(), a.getShape().getShape(), a.getName());
      out.put(a.getName(), a.toType(DataType.FLOAT32, false).toFloatArray());
    }
    return out;
  }

  private static double maxDiff(Map<String, float[]> exported) {
    double max = 0;
    for (var e : exported.entrySet()) {
      float[] m = masters.get(e.getKey()).values();
      for (int i = 0; i < m.length; i++) max = Math.max(max, Math.abs((double) m[i] - e.getValue()[i]));
    }
    return max;
  }

  private static JsonNode json(Path file) throws Exception {
    return JSON.readTree(file.toFile());
  }

  /** What transformers' AutoConfig and Qwen3ForCausalLM read to build the model, as the masters' config says. */
  private static void assertTransformersConfig(Path folder, String torchDtype) throws Exception {
    JsonNode c = json(folder.resolve(HfModelFolder.CONFIG));
    assertEquals("Qwen3ForCausalLM", c.path("architectures").get(0).asText());
    assertEquals("qwen3", c.path("model_type").asText());
    assertEquals(torchDtype, c.path("torch_dtype").asText());
    Map<String, Integer> sizes = Map.of("vocab_size", config.vocabSize(), "hidden_size", config.hiddenSize(),
        "intermediate_size", config.intermediateSize(), "num_hidden_layers", config.numLayers(),
        "num_attention_heads", config.numHeads(), "num_key_value_heads", config.numKvHeads(),
        "head_dim", config.headDim(), "max_position_embeddings", config.maxPositionEmbeddings());
    sizes.forEach((k, v) -> assertEquals(v.intValue(), c.path(k).asInt(-1), k));
    for (String k : List.of("rms_norm_eps", "rope_theta", "hidden_act", "tie_word_embeddings", "eos_token_id")) {
      assertTrue(c.has(k), k + " missing from config.json: " + c);
    }
    assertEquals(config.tieWordEmbeddings(), c.path("tie_word_embeddings").asBoolean());
    // A tied model ships no lm_head.weight (transformers ties it to the embedding).
    assertEquals(!config.tieWordEmbeddings(), masters.containsKey("lm_head.weight"));
    JsonNode gen = json(folder.resolve(HfModelFolder.GENERATION_CONFIG));
    assertEquals(c.path("eos_token_id").toString().replaceAll("[\\[\\]]", ""),
        gen.path("eos_token_id").toString().replaceAll("[\\[\\]]", ""), "generation_config's eos is the model's");
  }

  @Test
  void djlReadsTheF32ExportBitForBitAndTheF16ExportWithinItsRounding() throws Exception {
    try (NDManager m = NDManager.newBaseManager(Device.cpu())) {
      Path f32 = dir.resolve("f32");
      HfExport.Report r32 = HfExport.write(checkpoint, f32, TensorDtype.F32);
      Map<String, float[]> back = djl(f32.resolve(HfModelFolder.WEIGHTS), DataType.FLOAT32, m);
      assertEquals(masters.keySet(), back.keySet());
      for (var e : back.entrySet()) {
        float[] master = masters.get(e.getKey()).values();
        for (int i = 0; i < master.length; i++) {
          assertEquals(Float.floatToRawIntBits(master[i]), Float.floatToRawIntBits(e.getValue()[i]), e.getKey() + "[" + i + "]");
        }
      }
      assertEquals(0.0, r32.maxAbsDiff());
      assertTransformersConfig(f32, "float32");

      Path f16 = dir.resolve("f16");
      HfExport.Report r16 = HfExport.write(checkpoint, f16, TensorDtype.F16);
      Map<String, float[]> half = djl(f16.resolve(HfModelFolder.WEIGHTS), DataType.FLOAT16, m);
      assertEquals(masters.keySet(), half.keySet());
      double measured = maxDiff(half);
      // F16 keeps 11 significant bits: an error of at most half a unit in the last place,
      // 2^-11 of the value (2^-25 absolute below its normal range).
      double bound = 0;
      for (HostTensor t : masters.values()) {
        for (float v : t.values()) bound = Math.max(bound, Math.max(Math.abs(v) * 0x1p-11, 0x1p-25));
      }
      System.out.printf("export f16: DJL reads max |exported - master| = %.3g (bound %.3g); the export reported %.3g in %s%n",
          measured, bound, r16.maxAbsDiff(), r16.worstTensor());
      assertTrue(measured > 0 && measured <= bound, measured + " vs bound " + bound);
      // The export's own figure is what an outside reader measures.
      assertEquals(measured, r16.maxAbsDiff(), 0.0);
      assertTransformersConfig(f16, "float16");
    }
  }

  @Test
  void theBf16ExportHoldsEachMasterRoundedToNearestEven() throws Exception {
    Path bf16 = dir.resolve("bf16");
    HfExport.Report r = HfExport.write(checkpoint, bf16, TensorDtype.BF16);
    byte[] file = Files.readAllBytes(bf16.resolve(HfModelFolder.WEIGHTS));
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    int headerLength = Math.toIntExact(b.getLong(0));
    JsonNode header = JSON.readTree(new String(file, 8, headerLength, StandardCharsets.UTF_8));
    assertEquals("pt", header.path("__metadata__").path("format").asText(), "transformers refuses other formats");
    Set<String> names = new HashSet<>();
    double max = 0;
    for (var e : header.properties()) {
      if (e.getKey().equals("__metadata__")) continue;
      names.add(e.getKey());
      HostTensor master = masters.get(e.getKey());
      assertEquals("BF16", e.getValue().path("dtype").asText());
      List<Long> shape = new ArrayList<>();
      e.getValue().path("shape").forEach(d -> shape.add(d.asLong()));
      assertEquals(java.util.Arrays.stream(master.shape()).boxed().toList(), shape);
      long from = e.getValue().path("data_offsets").get(0).asLong();
      long to = e.getValue().path("data_offsets").get(1).asLong();
      float[] v = master.values();
      assertEquals(2L * v.length, to - from, e.getKey());
      int base = 8 + headerLength + Math.toIntExact(from);
      for (int i = 0; i < v.length; i++) {
        int bits = Float.floatToRawIntBits(v[i]);
        int nearestEven = (bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16;
        short stored = b.getShort(base + 2 * i);
        assertEquals((short) nearestEven, stored, e.getKey() + "[" + i + "] = " + v[i]);
        max = Math.max(max, Math.abs(v[i] - Float.intBitsToFloat((stored & 0xFFFF) << 16)));
      }
    }
    assertEquals(masters.keySet(), names);
    System.out.printf("export bf16: max |exported - master| from the raw bytes = %.3g; the export reported %.3g%n",
        max, r.maxAbsDiff());
    assertTrue(max > 0, "bf16 must round these masters");
    assertEquals(max, r.maxAbsDiff(), 0.0);
    assertTransformersConfig(bf16, "bfloat16");
  }

  @Test
  void aShardedExportHasAnIndexOverShardsDjlReads() throws Exception {
    Path sharded = dir.resolve("sharded");
    // A single-file export there first: the sharded one must not leave its weights behind.
    HfExport.write(checkpoint, sharded, TensorDtype.F32);
    long total = masters.values().stream().mapToLong(t -> 4L * t.values().length).sum();
    HfExport.Report r = HfExport.write(checkpoint, sharded, TensorDtype.F32, total / 3);
    assertFalse(Files.exists(sharded.resolve(HfModelFolder.WEIGHTS)), "a stale model.safetensors would be loaded first");
    JsonNode index = json(sharded.resolve(HfModelFolder.INDEX));
    assertEquals(total, index.path("metadata").path("total_size").asLong());
    Map<String, String> weightMap = new HashMap<>();
    index.path("weight_map").properties().forEach(e -> weightMap.put(e.getKey(), e.getValue().asText()));
    assertEquals(masters.keySet(), weightMap.keySet());
    Set<String> shards = new HashSet<>(weightMap.values());
    assertTrue(shards.size() >= 3, "shards: " + shards);
    Map<String, float[]> back = new HashMap<>();
    try (NDManager m = NDManager.newBaseManager(Device.cpu())) {
      for (String shard : shards) {
        assertTrue(shard.matches("model-\\d{5}-of-\\d{5}\\.safetensors"), shard);
        Map<String, float[]> part = djl(sharded.resolve(shard), DataType.FLOAT32, m);
        part.keySet().forEach(n -> assertEquals(shard, weightMap.get(n), n + " is in the shard the index names"));
        back.putAll(part);
      }
    }
    assertEquals(masters.keySet(), back.keySet());
    assertEquals(0.0, maxDiff(back));
    assertEquals(0.0, r.maxAbsDiff());
    assertTransformersConfig(sharded, "float32");
  }

  @Test
  void theHuggingFaceTokenizersLibraryLoadsTheExportedFolder() throws Exception {
    Path out = dir.resolve("tokenizer");
    HfExport.write(checkpoint, out, TensorDtype.F32);
    String text = "Which treebank is the parser trained on? <|im_end|>";
    try (HuggingFaceTokenizer exported = HuggingFaceTokenizer.newInstance(out);
        HuggingFaceTokenizer base = HuggingFaceTokenizer.newInstance(dir.resolve("base"))) {
      Encoding e = exported.encode(text, false, false);
      assertArrayEquals(base.encode(text, false, false).getIds(), e.getIds());
      assertTrue(e.getIds().length > 10, "tokens: " + e.getIds().length);
      // Every id is inside the exported embedding.
      for (long id : e.getIds()) assertTrue(id >= 0 && id < config.vocabSize(), "id " + id);
      assertEquals(text, exported.decode(e.getIds(), false));
    }
  }
}
