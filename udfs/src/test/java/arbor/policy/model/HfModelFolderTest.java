package arbor.policy.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import arbor.policy.files.ChatMessage;
import arbor.policy.files.HostTensor;
import arbor.policy.files.PolicyTokenizer;
import arbor.policy.files.SafetensorsFile;
import arbor.policy.files.SafetensorsWriter;
import arbor.policy.files.TensorDtype;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HfModelFolderTest {

  private static final ModelConfig TINY = ModelConfig.qwen3(300, 32, 48, 2, 4, 2, 8, false);

  @TempDir Path tmp;

  @Test
  void safetensorsRoundTripsF32F16AndBf16Exactly() throws IOException {
    float[] values = {0f, -0f, 1f, -2.5f, 3.1415927f, 1e-3f, 65504f, -1e-8f, 0.1f, 7f, 1e30f,
        Float.MIN_NORMAL};
    for (TensorDtype dtype : TensorDtype.values()) {
      // Values representable in the dtype: narrow once, then they must survive unchanged.
      float[] stored = narrow(values, dtype);
      HostTensor t = new HostTensor("w", dtype, new long[] {3, 4}, stored);
      Path file = tmp.resolve(dtype + ".safetensors");
      SafetensorsWriter.write(file, List.of(t, new HostTensor("b", dtype, new long[] {2},
          new float[] {1f, 2f})));
      try (SafetensorsFile f = new SafetensorsFile(file)) {
        HostTensor back = f.read("w");
        assertEquals(dtype, back.dtype());
        assertArrayEquals(new long[] {3, 4}, back.shape());
        assertArrayEquals(stored, back.values(), 0f, dtype.name());
        assertArrayEquals(new float[] {1f, 2f}, f.read("b").values());
        assertEquals("pt", f.metadata().get("format"));
      }
    }
  }

  @Test
  void bf16IsWidenedByShiftingAndNarrowedToNearestEven() throws IOException {
    // 1 + 2^-8 is halfway between bf16 1.0 and 1 + 2^-7: ties go to the even mantissa (1.0).
    assertEquals(0x3F80, TensorDtype.floatToBf16(1f + 0x1p-8f) & 0xFFFF);
    assertEquals(0x3F81, TensorDtype.floatToBf16(1f + 0x1p-8f + 0x1p-20f) & 0xFFFF);
    assertEquals(1.0078125f, TensorDtype.bf16ToFloat((short) 0x3F81));
    // Bytes written by hand: header + two BF16 values 1.0 (0x3F80) and -2.0 (0xC000).
    String header = "{\"x\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,4]}}";
    byte[] h = header.getBytes();
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8 + h.length + 4)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.putLong(h.length).put(h).putShort((short) 0x3F80).putShort((short) 0xC000);
    Path file = tmp.resolve("hand.safetensors");
    Files.write(file, b.array());
    try (SafetensorsFile f = new SafetensorsFile(file)) {
      assertArrayEquals(new float[] {1f, -2f}, f.read("x").values());
    }
  }

  @Test
  void anUnsupportedDtypeIsNamedWithItsTensor() throws IOException {
    String header = "{\"ids\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]}}";
    byte[] h = header.getBytes();
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8 + h.length + 8)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.putLong(h.length).put(h).putLong(1);
    Path file = tmp.resolve("i64.safetensors");
    Files.write(file, b.array());
    var e = assertThrows(IllegalArgumentException.class, () -> new SafetensorsFile(file).close());
    assertTrue(e.getMessage().contains("'ids'") && e.getMessage().contains("I64"),
        e.getMessage());
  }

  @Test
  void aBf16TinyModelLoadsAndExportsBackBitIdentically() throws IOException {
    Path dir = tmp.resolve("tiny");
    TinyModels.write(TINY, 3, new TinyModels.TokenizerSource.ByteLevel(), TensorDtype.BF16, dir);
    Path out = tmp.resolve("exported");
    try (PolicyModel p = HfModelFolder.load(dir, Device.cpu())) {
      HfModelFolder.export(p, out, 0);
    }
    // Same dtype, same bytes: the weights file is byte-identical, not just close.
    assertArrayEquals(Files.readAllBytes(dir.resolve("model.safetensors")),
        Files.readAllBytes(out.resolve("model.safetensors")));
    assertEquals(HfModelFolder.readConfig(dir), HfModelFolder.readConfig(out));
    assertArrayEquals(Files.readAllBytes(dir.resolve("tokenizer.json")),
        Files.readAllBytes(out.resolve("tokenizer.json")));
  }

  @Test
  void shardedWeightsLoadToTheSameLogitsAsOneFile() throws IOException {
    Path single = tmp.resolve("single");
    TinyModels.write(TINY, 5, new TinyModels.TokenizerSource.ByteLevel(), TensorDtype.F32,
        single);
    Path sharded = tmp.resolve("sharded");
    try (PolicyModel p = HfModelFolder.load(single, Device.cpu())) {
      HfModelFolder.export(p, sharded, 40_000);  // about 100 KB of weights -> several shards
    }
    assertTrue(Files.exists(sharded.resolve(HfModelFolder.INDEX)));
    assertTrue(Files.notExists(sharded.resolve(HfModelFolder.WEIGHTS)));
    long shards;
    try (var files = Files.list(sharded)) {
      shards = files.filter(f -> f.getFileName().toString().matches("model-\\d{5}-of-\\d{5}"
          + "\\.safetensors")).count();
    }
    assertTrue(shards > 2, "expected several shards, got " + shards);
    try (PolicyModel a = HfModelFolder.load(single, Device.cpu());
        PolicyModel b = HfModelFolder.load(sharded, Device.cpu());
        NDManager work = a.model().newWorkManager()) {
      var tokens = work.create(new long[] {1, 2, 3, 4}, new Shape(1, 4));
      assertArrayEquals(a.model().forward(tokens).toFloatArray(),
          b.model().forward(tokens).toFloatArray(), 0f);
    }
  }

  @Test
  void aMissingShardIsNamedWithItsTensor() throws IOException {
    Path sharded = tmp.resolve("broken");
    HfModelFolder.writeWeights(ScratchModel.weights(TINY, 1, TensorDtype.F32), sharded,
        40_000);
    Files.delete(sharded.resolve("model-00002-of-" + String.format("%05d",
        countShards(sharded)) + ".safetensors"));
    var e = assertThrows(IOException.class, () -> HfModelFolder.readWeights(sharded));
    assertTrue(e.getMessage().contains("model-00002-of-") && e.getMessage().contains("tensor"),
        e.getMessage());
  }

  @Test
  void aFolderWithoutWeightsSaysWhatIsMissing() throws IOException {
    Path dir = tmp.resolve("empty");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("config.json"), TINY.toJson());
    var e = assertThrows(IOException.class, () -> HfModelFolder.load(dir, Device.cpu()));
    assertTrue(e.getMessage().contains("model.safetensors"), e.getMessage());
  }

  @Test
  void theByteLevelTokenizerRoundTripsAnyTextAndKnowsTheChatMarkers() throws IOException {
    Path dir = tmp.resolve("tok");
    ByteLevelTokenizerFiles.write(dir);
    try (PolicyTokenizer tok = PolicyTokenizer.load(dir.resolve("tokenizer.json"))) {
      String text = "<|im_start|>user\nGrüße, 世界 x=1\t<|im_end|>\n";
      int[] ids = tok.encode(text);
      assertEquals(257, ids[0]);
      assertEquals(ByteLevelTokenizerFiles.IM_END, tok.tokenId("<|im_end|>"));
      assertEquals(text, tok.decode(ids));
      assertEquals(ByteLevelTokenizerFiles.VOCAB - 1, tok.tokenId("</think>"));
    }
  }

  @Test
  void aTinyModelWithTheRealQwen3TokenizerLoads() throws IOException {
    Path tokenizers = Qwen3Tokenizer.folder();
    Path dir = tmp.resolve("qwen3-tok");
    ModelConfig c = ModelConfig.qwen3(151_936, 16, 32, 1, 2, 1, 8, true);
    TinyModels.write(c, 1, new TinyModels.TokenizerSource.Folder(tokenizers), TensorDtype.BF16,
        dir);
    try (PolicyModel p = HfModelFolder.load(dir, Device.cpu())) {
      assertTrue(p.stopTokenIds().contains(151645));
      assertEquals(151_936, p.config().vocabSize());
      int[] ids = p.promptIds(List.of(ChatMessage.user("Hi")));
      assertEquals(151644, ids[0]);
    }
  }

  private static long countShards(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".safetensors")).count();
    }
  }

  private static float[] narrow(float[] v, TensorDtype dtype) {
    float[] out = new float[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = switch (dtype) {
        case F32 -> v[i];
        case F16 -> Float.float16ToFloat(Float.floatToFloat16(v[i]));
        case BF16 -> TensorDtype.bf16ToFloat(TensorDtype.floatToBf16(v[i]));
      };
    }
    return out;
  }
}
