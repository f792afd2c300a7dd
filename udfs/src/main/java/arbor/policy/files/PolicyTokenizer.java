package arbor.policy.files;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * A Hugging Face {@code tokenizer.json}, run by DJL's native tokenizers library. Text is encoded
 * exactly as written: no special tokens are added, because the chat format already spells out
 * every {@code <|im_start|>}, and special-token strings in the text map to their single ids.
 */
public final class PolicyTokenizer implements AutoCloseable {

  private final HuggingFaceTokenizer tokenizer;

  private PolicyTokenizer(HuggingFaceTokenizer tokenizer) {
    this.tokenizer = tokenizer;
  }

  /** Loads {@code tokenizer.json}; no truncation and no padding, whatever its file says. */
  public static PolicyTokenizer load(Path tokenizerJson) throws IOException {
    return new PolicyTokenizer(HuggingFaceTokenizer.newInstance(tokenizerJson, OPTIONS));
  }

  /** The same from the file's bytes (a checkpoint read from the warehouse has no local file). */
  public static PolicyTokenizer load(byte[] tokenizerJson) throws IOException {
    return new PolicyTokenizer(HuggingFaceTokenizer.newInstance(
        new java.io.ByteArrayInputStream(tokenizerJson), OPTIONS));
  }

  private static final Map<String, String> OPTIONS = Map.of(
      "addSpecialTokens", "false",
      "truncation", "false",
      "padding", "false",
      "modelMaxLength", String.valueOf(Integer.MAX_VALUE));

  public int[] encode(String text) {
    Encoding e = tokenizer.encode(text, false, false);
    long[] ids = e.getIds();
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = Math.toIntExact(ids[i]);
    }
    return out;
  }

  /** Decodes ids to text, special tokens included (the RLM runtime strips what it must). */
  public String decode(int[] ids) {
    long[] l = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      l[i] = ids[i];
    }
    return tokenizer.decode(l, false);
  }

  /** The id of a token that must encode to exactly one id, such as {@code <|im_end|>}. */
  public int tokenId(String token) {
    int[] ids = encode(token);
    if (ids.length != 1) {
      throw new IllegalArgumentException("Token '" + token + "' is not a single token in this"
          + " tokenizer (it encodes to " + ids.length + " ids); is this the right tokenizer.json?");
    }
    return ids[0];
  }

  @Override
  public void close() {
    tokenizer.close();
  }
}
