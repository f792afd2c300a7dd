package arbor.jobs.demo;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import arbor.policy.model.HfModelFolder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Trims a byte-level BPE tokenizer (Qwen3's) to the texts a from-scratch student will see, so
 * its embedding is sized to those texts instead of 151,936 ids, and writes it as a real Hugging
 * Face tokenizer folder ({@code tokenizer.json}, {@code tokenizer_config.json}).
 *
 * <p>Kept: the 256 byte symbols (any text stays encodable, byte by byte if need be), every
 * added token ({@code <|im_start|>} and the like), and every token the full tokenizer gives the
 * texts, closed under merges: a kept token keeps the parts of every merge that makes it. A
 * merge is kept when its two parts and its result are. BPE applies the lowest-ranked applicable
 * merge at each step; every merge the full tokenizer applies to a kept text is kept, and the kept
 * merges are a subset with the same ranks, so the trimmed tokenizer picks the same merge at every
 * step and gives the same token strings. {@link #write} checks that on every text before it
 * returns, with the real HF tokenizers library reading the written file.
 *
 * <p>Ids are renumbered compactly: regular tokens from 0 in their original order, then the added
 * tokens in their original order.
 */
public final class StudentVocabulary {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** As {@code PolicyTokenizer} loads a tokenizer: text encoded as written, no added ids. */
  private static final Map<String, String> OPTIONS = Map.of(
      "addSpecialTokens", "false",
      "truncation", "false",
      "padding", "false",
      "modelMaxLength", String.valueOf(Integer.MAX_VALUE));

  private StudentVocabulary() {}

  /**
   * What was written and checked.
   *
   * @param regularTokens BPE vocabulary entries, ids 0 to regularTokens - 1
   * @param addedTokens added tokens, the ids after the regular ones
   * @param merges merges kept
   * @param textsChecked texts encoded by both tokenizers and found identical
   * @param tokensChecked tokens of those texts
   */
  public record Trimmed(Path folder, int regularTokens, int addedTokens, int merges,
      long textsChecked, long tokensChecked) {

    /** Ids in the tokenizer; a model's vocab_size must be at least this. */
    public int vocabSize() {
      return regularTokens + addedTokens;
    }
  }

  /** One BPE merge: {@code left} and {@code right} next to each other become their join. */
  record Merge(String left, String right) {
    String result() {
      return left + right;
    }
  }

  /** The trimmed tokenizer encodes a text differently from the full one. */
  public static final class MismatchException extends IllegalStateException {
    MismatchException(String message) {
      super(message);
    }
  }

  /**
   * Writes the tokenizer of {@code fullFolder} trimmed to {@code texts} into {@code outFolder},
   * then checks that every text encodes to the same token strings as with the full tokenizer.
   * The texts are iterated twice (once to collect, once to check), so pass a collection or an
   * Iterable that streams them again, e.g. {@code () -> corpus.lines().iterator()}.
   *
   * @param fullFolder holds {@code tokenizer.json} (byte-level BPE) and, optionally,
   *     {@code tokenizer_config.json}
   * @throws MismatchException naming the first text the trimmed tokenizer encodes differently
   */
  public static Trimmed write(Path fullFolder, Iterable<String> texts, Path outFolder)
      throws IOException {
    return write(fullFolder, texts, outFolder, m -> false);
  }

  /**
   * The same, dropping the merges {@code drop} accepts from the kept ones: only for tests, to
   * break the guarantee on purpose and see the check catch it.
   */
  static Trimmed write(Path fullFolder, Iterable<String> texts, Path outFolder,
      Predicate<Merge> drop) throws IOException {
    Path fullJson = fullFolder.resolve(HfModelFolder.TOKENIZER);
    ObjectNode root = (ObjectNode) JSON.readTree(fullJson.toFile());
    ObjectNode model = (ObjectNode) root.get("model");
    if (model == null || !"BPE".equals(model.path("type").asText())) {
      throw new IllegalArgumentException(fullJson + " is not a BPE tokenizer");
    }
    // Detached from the tree: they are replaced by their trimmed versions below.
    ObjectNode vocab = (ObjectNode) model.remove("vocab");
    ArrayNode mergeNodes = (ArrayNode) model.remove("merges");
    // Older files write a merge as "left right", newer ones as ["left", "right"]; the output
    // keeps the input's form.
    boolean mergesAsStrings = !mergeNodes.isEmpty() && mergeNodes.get(0).isTextual();
    List<Merge> merges = new ArrayList<>(mergeNodes.size());
    for (JsonNode m : mergeNodes) {
      merges.add(parseMerge(m, fullJson));
    }
    Map<String, Integer> added = new LinkedHashMap<>();
    root.path("added_tokens").forEach(t -> added.put(t.get("content").asText(),
        t.get("id").asInt()));

    Set<String> kept = keptTokens(vocab, merges, added.keySet(), fullJson, texts);
    List<Merge> keptMerges = new ArrayList<>();
    for (Merge m : merges) {
      if (kept.contains(m.left()) && kept.contains(m.right()) && kept.contains(m.result())
          && !drop.test(m)) {
        keptMerges.add(m);
      }
    }

    // New ids: kept vocabulary entries in their old id order, then added tokens not already in
    // the vocabulary, in their old id order.
    TreeMap<Integer, String> byOldId = new TreeMap<>();
    vocab.properties().forEach(e -> {
      if (kept.contains(e.getKey())) {
        byOldId.put(e.getValue().asInt(), e.getKey());
      }
    });
    Map<String, Integer> newIds = new LinkedHashMap<>();
    byOldId.values().forEach(t -> newIds.put(t, newIds.size()));
    int regular = newIds.size();
    new TreeMap<>(invert(added)).values().forEach(t -> newIds.putIfAbsent(t, newIds.size()));

    ObjectNode newVocab = JSON.createObjectNode();
    byOldId.values().forEach(t -> newVocab.put(t, newIds.get(t)));
    ArrayNode newMerges = JSON.createArrayNode();
    for (Merge m : keptMerges) {
      if (mergesAsStrings) {
        newMerges.add(m.left() + " " + m.right());
      } else {
        newMerges.addArray().add(m.left()).add(m.right());
      }
    }
    model.set("vocab", newVocab);
    model.set("merges", newMerges);
    for (JsonNode t : root.path("added_tokens")) {
      ((ObjectNode) t).put("id", newIds.get(t.get("content").asText()));
    }
    remapIds(root.get("post_processor"), newIds, fullJson);
    if (root.hasNonNull("padding")) {
      ObjectNode padding = (ObjectNode) root.get("padding");
      padding.put("pad_id", newId(newIds, padding.path("pad_token").asText(), fullJson));
    }

    Files.createDirectories(outFolder);
    Path outJson = outFolder.resolve(HfModelFolder.TOKENIZER);
    JSON.writerWithDefaultPrettyPrinter().writeValue(outJson.toFile(), root);
    Path fullConfig = fullFolder.resolve(HfModelFolder.TOKENIZER_CONFIG);
    if (Files.isRegularFile(fullConfig)) {
      JSON.writerWithDefaultPrettyPrinter().writeValue(
          outFolder.resolve(HfModelFolder.TOKENIZER_CONFIG).toFile(),
          rekeyAddedTokens((ObjectNode) JSON.readTree(fullConfig.toFile()), added, newIds,
              fullConfig));
    }
    long[] checked = check(fullJson, outJson, texts);
    return new Trimmed(outFolder, regular, newIds.size() - regular, keptMerges.size(),
        checked[0], checked[1]);
  }

  /** The byte symbols, the added tokens and the texts' tokens, closed under merges. */
  private static Set<String> keptTokens(ObjectNode vocab, List<Merge> merges,
      Set<String> added, Path fullJson, Iterable<String> texts) throws IOException {
    Set<String> kept = new HashSet<>(added);
    ArrayDeque<String> todo = new ArrayDeque<>();
    for (String symbol : byteSymbols()) {
      if (!vocab.has(symbol)) {
        throw new IllegalArgumentException(fullJson + " is not a byte-level BPE tokenizer: its"
            + " vocabulary lacks the byte symbol '" + symbol + "'");
      }
      kept.add(symbol);
      todo.add(symbol);
    }
    try (HuggingFaceTokenizer full = HuggingFaceTokenizer.newInstance(fullJson, OPTIONS)) {
      for (String text : texts) {
        for (String token : full.encode(text, false, false).getTokens()) {
          if (kept.add(token)) {
            todo.add(token);
          }
        }
      }
    }
    Map<String, List<Merge>> makers = new HashMap<>();
    for (Merge m : merges) {
      makers.computeIfAbsent(m.result(), k -> new ArrayList<>(1)).add(m);
    }
    while (!todo.isEmpty()) {
      for (Merge m : makers.getOrDefault(todo.poll(), List.of())) {
        for (String part : List.of(m.left(), m.right())) {
          if (kept.add(part)) {
            todo.add(part);
          }
        }
      }
    }
    for (String t : kept) {
      if (!vocab.has(t) && !added.contains(t)) {
        throw new IllegalStateException("Token '" + t + "' is neither in the vocabulary nor an"
            + " added token of " + fullJson);
      }
    }
    return kept;
  }

  /**
   * GPT-2's byte-level alphabet, which Qwen's ByteLevel pre-tokenizer uses: a printable byte
   * stands for itself, the others for code points 256 and up, in byte order.
   */
  static List<String> byteSymbols() {
    List<String> out = new ArrayList<>(256);
    int shifted = 0;
    for (int b = 0; b < 256; b++) {
      boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      out.add(Character.toString(printable ? b : 256 + shifted++));
    }
    return out;
  }

  private static Merge parseMerge(JsonNode m, Path file) {
    String[] parts = m.isTextual() ? m.asText().split(" ", -1)
        : m.isArray() && m.size() == 2 ? new String[] {m.get(0).asText(), m.get(1).asText()}
        : new String[0];
    if (parts.length != 2) {
      throw new IllegalArgumentException(file + ": merge " + m + " is not a pair");
    }
    return new Merge(parts[0], parts[1]);
  }

  /**
   * Rewrites the ids a post-processor names next to its tokens (TemplateProcessing's
   * special_tokens, Bert's and Roberta's cls/sep). Qwen3's ByteLevel post-processor names none.
   */
  private static void remapIds(JsonNode processor, Map<String, Integer> newIds, Path file) {
    if (processor == null || processor.isNull()) {
      return;
    }
    switch (processor.path("type").asText()) {
      case "ByteLevel" -> { }
      case "Sequence" -> processor.path("processors").forEach(p -> remapIds(p, newIds, file));
      case "TemplateProcessing" -> processor.path("special_tokens").forEach(s -> {
        ArrayNode ids = ((ObjectNode) s).putArray("ids");
        s.path("tokens").forEach(t -> ids.add(newId(newIds, t.asText(), file)));
      });
      case "BertProcessing", "RobertaProcessing" -> {
        for (String key : List.of("cls", "sep")) {
          ArrayNode pair = (ArrayNode) processor.get(key);
          pair.set(1, newId(newIds, pair.get(0).asText(), file));
        }
      }
      default -> throw new IllegalArgumentException(file + ": post_processor type '"
          + processor.path("type").asText() + "' may name ids; StudentVocabulary cannot remap it");
    }
  }

  private static int newId(Map<String, Integer> newIds, String token, Path file) {
    Integer id = newIds.get(token);
    if (id == null) {
      throw new IllegalArgumentException(file + " names token '" + token + "', which is not"
          + " kept (only added tokens and the texts' tokens are)");
    }
    return id;
  }

  /** {@code added_tokens_decoder} is keyed by id: the same entries under the new ids. */
  private static ObjectNode rekeyAddedTokens(ObjectNode config, Map<String, Integer> added,
      Map<String, Integer> newIds, Path file) {
    JsonNode decoder = config.get("added_tokens_decoder");
    if (decoder == null) {
      return config;
    }
    Map<Integer, String> byOldId = invert(added);
    ObjectNode rekeyed = JSON.createObjectNode();
    decoder.properties().forEach(e -> {
      String token = byOldId.get(Integer.parseInt(e.getKey()));
      if (token == null || !token.equals(e.getValue().path("content").asText())) {
        throw new IllegalArgumentException(file + ": added_tokens_decoder id " + e.getKey()
            + " is not an added token of " + HfModelFolder.TOKENIZER);
      }
      rekeyed.set(String.valueOf(newIds.get(token)), e.getValue());
    });
    config.set("added_tokens_decoder", rekeyed);
    return config;
  }

  private static Map<Integer, String> invert(Map<String, Integer> ids) {
    Map<Integer, String> out = new HashMap<>();
    ids.forEach((t, id) -> out.put(id, t));
    return out;
  }

  /**
   * Encodes every text with both tokenizers, the written one read back by the HF tokenizers
   * library, and fails on the first difference in token strings.
   *
   * @return texts and tokens checked
   */
  private static long[] check(Path fullJson, Path trimmedJson, Iterable<String> texts)
      throws IOException {
    long count = 0;
    long tokens = 0;
    try (HuggingFaceTokenizer full = HuggingFaceTokenizer.newInstance(fullJson, OPTIONS);
        HuggingFaceTokenizer trimmed = HuggingFaceTokenizer.newInstance(trimmedJson, OPTIONS)) {
      for (String text : texts) {
        Encoding want = full.encode(text, false, false);
        String[] a = want.getTokens();
        String[] b = trimmed.encode(text, false, false).getTokens();
        int at = Arrays.mismatch(a, b);
        if (at >= 0) {
          var span = at < a.length ? want.getCharTokenSpans()[at] : null;
          int from = span == null ? text.length() : span.getStart();
          throw new MismatchException("The trimmed tokenizer in " + trimmedJson.getParent()
              + " encodes text #" + count + " differently from the full one, from token " + at
              + " (full '" + (at < a.length ? a[at] : "<end>") + "', trimmed '"
              + (at < b.length ? b[at] : "<end>") + "') at \""
              + excerpt(text, from) + "\"");
        }
        count++;
        tokens += a.length;
      }
    }
    return new long[] {count, tokens};
  }

  /** A line's worth of text around a character offset, newlines shown as \n. */
  private static String excerpt(String text, int at) {
    int from = Math.max(0, Math.min(at, text.length()) - 20);
    int to = Math.min(text.length(), from + 60);
    return (from > 0 ? "..." : "") + text.substring(from, to).replace("\n", "\\n")
        + (to < text.length() ? "..." : "");
  }
}
