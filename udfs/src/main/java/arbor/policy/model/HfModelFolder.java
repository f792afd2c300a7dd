package arbor.policy.model;

import ai.djl.Device;
import arbor.policy.files.ChatFormat;
import arbor.policy.files.HostTensor;
import arbor.policy.files.PolicyTokenizer;
import arbor.policy.files.SafetensorsFile;
import arbor.policy.files.SafetensorsWriter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads and writes Hugging Face model folders: {@code config.json}, weights in
 * {@code model.safetensors} or shards listed by {@code model.safetensors.index.json},
 * {@code tokenizer.json}, {@code tokenizer_config.json} and {@code generation_config.json}.
 */
public final class HfModelFolder {

  public static final String CONFIG = "config.json";
  public static final String WEIGHTS = "model.safetensors";
  public static final String INDEX = "model.safetensors.index.json";
  public static final String TOKENIZER = "tokenizer.json";
  public static final String TOKENIZER_CONFIG = "tokenizer_config.json";
  public static final String GENERATION_CONFIG = "generation_config.json";
  /** Files copied verbatim on export when present. */
  public static final List<String> SIDE_FILES = List.of(TOKENIZER, TOKENIZER_CONFIG, GENERATION_CONFIG,
      "special_tokens_map.json", "vocab.json", "merges.txt");

  private static final ObjectMapper JSON = new ObjectMapper();

  private HfModelFolder() {}

  /** Loads a whole checkpoint onto a device. */
  public static PolicyModel load(Path dir, Device device) throws IOException {
    ModelConfig config = readConfig(dir);
    Map<String, HostTensor> tensors = readWeights(dir);
    require(dir, TOKENIZER, "the tokenizer (copy it from the base model)");
    Map<String, byte[]> side = new LinkedHashMap<>();
    for (String f : SIDE_FILES) {
      if (Files.isRegularFile(dir.resolve(f))) {
        side.put(f, Files.readAllBytes(dir.resolve(f)));
      }
    }
    return assemble(config, tensors, side, device);
  }

  /**
   * Builds a policy from a folder's contents held in memory (a checkpoint read from the
   * warehouse): the config, the weights, and the side files by name, tokenizer.json among them.
   */
  public static PolicyModel assemble(ModelConfig config, Map<String, HostTensor> tensors,
      Map<String, byte[]> sideFiles, Device device) throws IOException {
    Map<String, byte[]> side = new LinkedHashMap<>();
    for (String f : SIDE_FILES) {
      if (sideFiles.containsKey(f)) {
        side.put(f, sideFiles.get(f));
      }
    }
    if (!side.containsKey(TOKENIZER)) {
      throw new IOException("The checkpoint has no " + TOKENIZER + " (the tokenizer); it was"
          + " saved without its model folder's files");
    }
    GenerationDefaults gen = side.containsKey(GENERATION_CONFIG)
        ? GenerationDefaults.parse(new String(side.get(GENERATION_CONFIG)))
        : GenerationDefaults.NONE;
    Qwen3Model model = Qwen3Model.create(config, tensors, device);
    try {
      PolicyTokenizer tokenizer = PolicyTokenizer.load(side.get(TOKENIZER));
      ChatFormat chat;
      try {
        chat = ChatFormat.forModel(config.modelType(), side.containsKey(TOKENIZER_CONFIG)
            ? JSON.readTree(side.get(TOKENIZER_CONFIG)) : null);
      } catch (RuntimeException e) {
        tokenizer.close();
        throw e;
      }
      return new PolicyModel(model, tokenizer, chat, gen, side);
    } catch (IOException | RuntimeException e) {
      model.close();
      throw e;
    }
  }

  public static ModelConfig readConfig(Path dir) throws IOException {
    Path file = require(dir, CONFIG, "the model's HF config");
    try {
      return ModelConfig.parse(Files.readString(file));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /** The chat template of {@code tokenizer_config.json}, or null when there is none. */
  public static String chatTemplate(Path dir) throws IOException {
    Path f = dir.resolve(TOKENIZER_CONFIG);
    if (!Files.isRegularFile(f)) {
      return null;
    }
    JsonNode t = JSON.readTree(f.toFile()).get("chat_template");
    return t == null || t.isNull() ? null : t.asText();
  }

  /** Every weight of the folder, single file or sharded, widened to F32 in Java. */
  public static Map<String, HostTensor> readWeights(Path dir) throws IOException {
    Map<String, HostTensor> out = new LinkedHashMap<>();
    if (Files.isRegularFile(dir.resolve(WEIGHTS))) {
      readAll(dir.resolve(WEIGHTS), out);
      return out;
    }
    Path index = require(dir, WEIGHTS + " or " + INDEX, "the weights");
    JsonNode map = JSON.readTree(index.toFile()).get("weight_map");
    if (map == null || !map.isObject()) {
      throw new IOException(index + " has no 'weight_map' object");
    }
    // Group tensor names by shard so each shard is opened once.
    Map<String, List<String>> byShard = new TreeMap<>();
    map.properties().forEach(e ->
        byShard.computeIfAbsent(e.getValue().asText(), k -> new ArrayList<>()).add(e.getKey()));
    for (var shard : byShard.entrySet()) {
      Path file = dir.resolve(shard.getKey());
      if (!Files.isRegularFile(file)) {
        throw new IOException(index + " lists shard '" + shard.getKey() + "' (for tensor '"
            + shard.getValue().get(0) + "'), but " + file + " does not exist");
      }
      try (SafetensorsFile f = new SafetensorsFile(file)) {
        for (String name : shard.getValue()) {
          if (!f.contains(name)) {
            throw new IOException(index + " maps tensor '" + name + "' to " + shard.getKey()
                + ", which does not contain it");
          }
          out.put(name, f.read(name));
        }
      }
    }
    return out;
  }

  private static void readAll(Path file, Map<String, HostTensor> out) throws IOException {
    try (SafetensorsFile f = new SafetensorsFile(file)) {
      for (String name : f.names()) {
        out.put(name, f.read(name));
      }
    }
  }

  private static Path require(Path dir, String name, String what) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw new IOException("Model folder " + dir + " does not exist");
    }
    for (String n : name.split(" or ")) {
      if (Files.isRegularFile(dir.resolve(n))) {
        return dir.resolve(n);
      }
    }
    throw new IOException("Model folder " + dir + " has no " + name + " (" + what + ")");
  }

  /**
   * Writes the policy as a HF folder: config, weights in their stored dtypes (one file, or shards
   * of at most {@code maxShardBytes} with an index), and the side files as they were read.
   */
  public static void export(PolicyModel policy, Path dir, long maxShardBytes) throws IOException {
    writeWeights(policy.model().toHostTensors(), dir, maxShardBytes);
    Files.writeString(dir.resolve(CONFIG), policy.config().toJson());
    for (var f : policy.sideFiles().entrySet()) {
      Files.write(dir.resolve(f.getKey()), f.getValue());
    }
  }

  /** Weights only; {@code maxShardBytes <= 0} means one file. */
  public static void writeWeights(List<HostTensor> tensors, Path dir, long maxShardBytes)
      throws IOException {
    Files.createDirectories(dir);
    long total = tensors.stream().mapToLong(t -> t.elementCount() * t.dtype().bytes()).sum();
    if (maxShardBytes <= 0 || total <= maxShardBytes) {
      SafetensorsWriter.write(dir.resolve(WEIGHTS), tensors);
      return;
    }
    List<List<HostTensor>> shards = new ArrayList<>();
    List<HostTensor> current = new ArrayList<>();
    long size = 0;
    for (HostTensor t : tensors) {
      long bytes = t.elementCount() * t.dtype().bytes();
      if (!current.isEmpty() && size + bytes > maxShardBytes) {
        shards.add(current);
        current = new ArrayList<>();
        size = 0;
      }
      current.add(t);
      size += bytes;
    }
    shards.add(current);
    Map<String, String> weightMap = new LinkedHashMap<>();
    for (int i = 0; i < shards.size(); i++) {
      String name = String.format("model-%05d-of-%05d.safetensors", i + 1, shards.size());
      SafetensorsWriter.write(dir.resolve(name), shards.get(i));
      shards.get(i).forEach(t -> weightMap.put(t.name(), name));
    }
    ObjectNode index = JSON.createObjectNode();
    index.putObject("metadata").put("total_size", total);
    ObjectNode map = index.putObject("weight_map");
    new TreeMap<>(weightMap).forEach(map::put);
    Files.writeString(dir.resolve(INDEX), JSON.writerWithDefaultPrettyPrinter()
        .writeValueAsString(index));
  }

  static Map<String, HostTensor> byName(List<HostTensor> tensors) {
    Map<String, HostTensor> m = new HashMap<>();
    tensors.forEach(t -> m.put(t.name(), t));
    return m;
  }
}
