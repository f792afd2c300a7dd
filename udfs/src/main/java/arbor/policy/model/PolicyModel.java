package arbor.policy.model;

import arbor.policy.files.ChatFormat;
import arbor.policy.files.ChatMessage;
import arbor.policy.files.PolicyTokenizer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A loaded policy checkpoint: the weights, the tokenizer, the chat format and the files that
 * travel with them. It owns the model's native memory and the tokenizer: close it once.
 *
 * @param sideFiles the tokenizer and generation files of the HF folder, byte for byte, so an
 *     export writes exactly what was read (tokenizer.json, tokenizer_config.json, ...)
 */
public record PolicyModel(Qwen3Model model, PolicyTokenizer tokenizer, ChatFormat chat,
    GenerationDefaults generation, Map<String, byte[]> sideFiles) implements AutoCloseable {

  public ModelConfig config() {
    return model.config();
  }

  /**
   * Ids that end generation: the chat format's stop tokens, the config's and the generation
   * config's end-of-sequence ids.
   */
  public Set<Integer> stopTokenIds() {
    Set<Integer> ids = new LinkedHashSet<>(config().eosTokenIds());
    ids.addAll(generation.eosTokenIds());
    for (String t : chat.stopTokens()) {
      ids.add(tokenizer.tokenId(t));
    }
    return ids;
  }

  /** Prompt ids for a conversation, ending with the generation prompt. */
  public int[] promptIds(List<ChatMessage> messages) {
    return tokenizer.encode(chat.render(new ArrayList<>(messages), true));
  }

  @Override
  public void close() {
    try {
      model.close();
    } finally {
      tokenizer.close();
    }
  }
}
