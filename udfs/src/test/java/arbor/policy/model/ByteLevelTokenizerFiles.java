package arbor.policy.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A small tokenizer for tiny test models when the real Qwen3 tokenizer is not at hand: one token
 * per byte (GPT-2's byte-to-character table, a BPE with no merges, so any text encodes) plus
 * the ChatML special tokens Qwen3 uses. 261 ids in all.
 */
public final class ByteLevelTokenizerFiles {

  /** Special tokens, ids 256 onwards, in this order. */
  public static final List<String> SPECIALS =
      List.of("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>");
  public static final int VOCAB = 256 + SPECIALS.size();
  public static final int IM_END = 256 + SPECIALS.indexOf("<|im_end|>");

  /**
   * A ChatML template equivalent to {@link Qwen3ChatFormat} for conversations without reasoning
   * and with thinking disabled; written for these test tokenizers, not taken from Qwen.
   */
  public static final String CHAT_TEMPLATE = """
      {%- for m in messages -%}<|im_start|>{{ m.role }}
      {{ m.content }}<|im_end|>
      {% endfor -%}
      {%- if add_generation_prompt -%}<|im_start|>assistant
      <think>

      </think>

      {% endif -%}""";

  private static final ObjectMapper JSON = new ObjectMapper();

  private ByteLevelTokenizerFiles() {}

  /** Writes tokenizer.json and tokenizer_config.json into {@code dir}. */
  public static void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    ObjectNode root = JSON.createObjectNode();
    root.put("version", "1.0");
    root.putNull("truncation");
    root.putNull("padding");
    ArrayNode added = root.putArray("added_tokens");
    for (int i = 0; i < SPECIALS.size(); i++) {
      added.addObject().put("id", 256 + i).put("content", SPECIALS.get(i))
          .put("single_word", false).put("lstrip", false).put("rstrip", false)
          .put("normalized", false).put("special", true);
    }
    root.putNull("normalizer");
    root.putObject("pre_tokenizer").put("type", "ByteLevel").put("add_prefix_space", false)
        .put("trim_offsets", true).put("use_regex", true);
    root.putObject("post_processor").put("type", "ByteLevel").put("add_prefix_space", false)
        .put("trim_offsets", false).put("use_regex", true);
    root.putObject("decoder").put("type", "ByteLevel").put("add_prefix_space", false)
        .put("trim_offsets", true).put("use_regex", true);
    ObjectNode model = root.putObject("model");
    model.put("type", "BPE").putNull("dropout").putNull("unk_token")
        .putNull("continuing_subword_prefix").putNull("end_of_word_suffix");
    model.put("fuse_unk", false).put("byte_fallback", false).put("ignore_merges", false);
    ObjectNode vocab = model.putObject("vocab");
    char[] table = byteToChar();
    for (int b = 0; b < 256; b++) {
      vocab.put(String.valueOf(table[b]), b);
    }
    model.putArray("merges");
    Files.writeString(dir.resolve(HfModelFolder.TOKENIZER), JSON.writeValueAsString(root));

    ObjectNode config = JSON.createObjectNode();
    config.put("tokenizer_class", "PreTrainedTokenizerFast");
    config.put("eos_token", "<|im_end|>");
    config.put("pad_token", "<|endoftext|>");
    config.put("chat_template", CHAT_TEMPLATE);
    Files.writeString(dir.resolve(HfModelFolder.TOKENIZER_CONFIG),
        JSON.writerWithDefaultPrettyPrinter().writeValueAsString(config));
  }

  /**
   * GPT-2's reversible byte-to-character table: printable Latin-1 bytes map to themselves, the
   * rest to code points from 256 upwards, so every byte is a visible character in the vocab.
   */
  static char[] byteToChar() {
    char[] table = new char[256];
    int next = 256;
    for (int b = 0; b < 256; b++) {
      boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      table[b] = printable ? (char) b : (char) next++;
    }
    return table;
  }
}
