package arbor.jobs.demo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import arbor.policy.files.ChatMessage;
import arbor.policy.files.PolicyTokenizer;
import arbor.policy.files.TensorDtype;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.ModelConfig;
import arbor.policy.model.PolicyModel;
import arbor.policy.model.Qwen3Tokenizer;
import arbor.policy.model.TinyModels;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StudentVocabularyTest {

  static final List<String> TEXTS = List.of(
      "The quick brown fox jumps over the lazy dog. Tokenizers split words into pieces,"
          + " and a student model only needs the pieces of its own texts.",
      "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n\n\n"
          + "class Tree:\n\tdef __init__(self):\n\t\tself.kids = []  # children\n",
      "In 2024, 3.14159 x 10^6 = 3141590; call 555-0123 or pay $1,299.99 (15% off) by 31/12.",
      "Café déjà vu — naïve façade; 東京は日本の首都です。中文分词很重要。 한국어 😀 ∑x²",
      "<|im_start|>system\nYou are a careful reader.<|im_end|>\n<|im_start|>user\nWhat is"
          + " 2+2?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n4<|im_end|>\n");

  static final Map<String, String> OPTIONS = Map.of("addSpecialTokens", "false",
      "truncation", "false", "padding", "false", "modelMaxLength", "1000000");

  @TempDir static Path tmp;
  static Path full;
  static StudentVocabulary.Trimmed trimmed;

  @BeforeAll
  static void trim() throws IOException {
    full = Qwen3Tokenizer.folder();
    trimmed = StudentVocabulary.write(full, TEXTS, tmp.resolve("student-tokenizer"));
  }

  static Path trimmedJson() {
    return trimmed.folder().resolve(HfModelFolder.TOKENIZER);
  }

  @Test
  void theTextsEncodeToTheSameTokensAsWithTheFullTokenizer() throws IOException {
    assertEquals(TEXTS.size(), trimmed.textsChecked());
    long tokens = 0;
    try (var a = HuggingFaceTokenizer.newInstance(full.resolve(HfModelFolder.TOKENIZER), OPTIONS);
        var b = HuggingFaceTokenizer.newInstance(trimmedJson(), OPTIONS)) {
      for (String text : TEXTS) {
        String[] want = a.encode(text, false, false).getTokens();
        assertArrayEquals(want, b.encode(text, false, false).getTokens(), text);
        tokens += want.length;
      }
      // The chat markers are single special tokens, not spelled out byte by byte.
      List<String> chat = Arrays.asList(b.encode(TEXTS.get(4), false, false).getTokens());
      assertEquals("<|im_start|>", chat.get(0));
      assertEquals(3, chat.stream().filter("<|im_end|>"::equals).count());
    }
    assertEquals(tokens, trimmed.tokensChecked());
  }

  @Test
  void theVocabularyIsMuchSmaller() {
    System.out.println("Trimmed Qwen3 vocabulary: " + trimmed);
    assertEquals(26, trimmed.addedTokens());
    assertTrue(trimmed.regularTokens() >= 256);
    assertTrue(trimmed.vocabSize() < 2_000, "kept " + trimmed.vocabSize() + " of 151,669 ids");
  }

  @Test
  void anUnseenTextRoundTripsThroughByteSymbols() throws IOException {
    String unseen = "Zyzzyva ☃ ɸ𝔘𝔫𝔦 qwertyuiop ₿42 ŁÓDŹ\r\n\u0000\t~ the end";
    try (PolicyTokenizer t = PolicyTokenizer.load(trimmedJson())) {
      int[] ids = t.encode(unseen);
      assertTrue(Arrays.stream(ids).allMatch(id -> id < trimmed.regularTokens()));
      assertEquals(unseen, t.decode(ids));
    }
  }

  @Test
  void addedTokensGetTheIdsAfterTheRegularOnesInBothFiles() throws IOException {
    int imEnd = trimmed.regularTokens() + 2;  // <|endoftext|>, <|im_start|>, <|im_end|>, ...
    try (PolicyTokenizer t = PolicyTokenizer.load(trimmedJson())) {
      assertEquals(imEnd, t.tokenId("<|im_end|>"));
      assertEquals(trimmed.regularTokens(), t.tokenId("<|endoftext|>"));
      assertEquals(trimmed.vocabSize() - 1, t.tokenId("</think>"));
    }
    JsonNode config = new ObjectMapper().readTree(
        trimmed.folder().resolve(HfModelFolder.TOKENIZER_CONFIG).toFile());
    assertEquals("<|im_end|>",
        config.get("added_tokens_decoder").get(String.valueOf(imEnd)).get("content").asText());
    assertEquals(trimmed.addedTokens(), config.get("added_tokens_decoder").size());
    assertEquals("<|im_end|>", config.get("eos_token").asText());
    assertTrue(config.get("chat_template").asText().contains("<|im_start|>"));
  }

  @Test
  void aModelWithTheTrimmedVocabularyLoadsAndChats() throws IOException {
    int vocab = (trimmed.vocabSize() + 63) / 64 * 64;
    Path dir = tmp.resolve("student-model");
    ModelConfig written = TinyModels.write(ModelConfig.qwen3(vocab, 64, 128, 2, 4, 2, 16, true),
        7, new TinyModels.TokenizerSource.Folder(trimmed.folder()), TensorDtype.F32, dir);
    int imEnd = trimmed.regularTokens() + 2;
    assertEquals(List.of(imEnd), written.eosTokenIds());
    try (PolicyModel policy = HfModelFolder.load(dir, Device.cpu());
        NDManager work = policy.model().newWorkManager()) {
      List<ChatMessage> chat = List.of(ChatMessage.system("Be brief."),
          ChatMessage.user("Café: what is 2+2?"));
      int[] prompt = policy.promptIds(chat);
      assertEquals(policy.chat().render(chat, true), policy.tokenizer().decode(prompt));
      assertTrue(policy.stopTokenIds().contains(imEnd));
      long[] ids = Arrays.stream(prompt).asLongStream().toArray();
      var logits = policy.model().forward(work.create(ids, new Shape(1, ids.length)));
      assertEquals(new Shape(1, ids.length, vocab), logits.getShape());
    }
  }

  @Test
  void theCheckCatchesATrimThatChangesTheTokens() throws IOException {
    List<String> texts = List.of("A first text.", "Tokenizers split words into pieces.");
    String[] tokens;
    try (var a = HuggingFaceTokenizer.newInstance(full.resolve(HfModelFolder.TOKENIZER),
        OPTIONS)) {
      tokens = a.encode(texts.get(1), false, false).getTokens();
    }
    // The longest token of the second text: without the merge that makes it, BPE cannot.
    String broken = Arrays.stream(tokens).reduce((x, y) -> y.length() > x.length() ? y : x)
        .orElseThrow();
    var e = assertThrows(StudentVocabulary.MismatchException.class, () ->
        StudentVocabulary.write(full, texts, tmp.resolve("broken"),
            m -> m.result().equals(broken)));
    assertTrue(e.getMessage().contains("text #1"), e.getMessage());
    assertTrue(e.getMessage().contains("full '" + broken + "'"), e.getMessage());
    assertTrue(e.getMessage().contains("words into pieces"), e.getMessage());
  }
}
