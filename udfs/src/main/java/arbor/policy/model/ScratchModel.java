package arbor.policy.model;

import ai.djl.Device;
import arbor.policy.files.HostTensor;
import arbor.policy.files.PolicyTokenizer;
import arbor.policy.files.TensorDtype;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A model that has learned nothing yet: seeded random weights for a {@link ModelConfig}, and a
 * Hugging Face folder holding them beside a tokenizer. This is where a student trained from
 * scratch starts (the demo's, bench learning's). The same (config, seed) gives the same bytes on
 * any machine.
 */
public final class ScratchModel {

  private ScratchModel() {}

  /**
   * Writes a random model of {@code config} to {@code dir}, with the tokenizer files of
   * {@code tokenizer} (a folder holding tokenizer.json and tokenizer_config.json; it may be
   * {@code dir} itself), and returns the config as written: the tokenizer's end-of-turn id as
   * its eos. The vocabulary must cover the tokenizer.
   */
  public static ModelConfig write(ModelConfig config, long seed, TensorDtype dtype, Path tokenizer, Path dir)
      throws IOException {
    Files.createDirectories(dir);
    for (String name : List.of(HfModelFolder.TOKENIZER, HfModelFolder.TOKENIZER_CONFIG)) {
      Path src = tokenizer.resolve(name);
      if (!Files.isRegularFile(src)) {
        throw new IOException("Tokenizer folder " + tokenizer + " has no " + name);
      }
      if (!Files.exists(dir.resolve(name)) || !Files.isSameFile(src, dir.resolve(name))) {
        Files.copy(src, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    int imEnd;
    try (PolicyTokenizer t = PolicyTokenizer.load(dir.resolve(HfModelFolder.TOKENIZER))) {
      imEnd = t.tokenId("<|im_end|>");
    }
    if (imEnd >= config.vocabSize()) {
      throw new IllegalArgumentException("vocab_size " + config.vocabSize() + " is smaller than"
          + " the tokenizer (<|im_end|> is id " + imEnd + "); raise vocab_size");
    }
    ModelConfig written = config.withEos(List.of(imEnd)).withTorchDtype(dtype.torchName());
    HfModelFolder.writeWeights(weights(written, seed, dtype), dir, 0);
    Files.writeString(dir.resolve(HfModelFolder.CONFIG), written.toJson());
    Files.writeString(dir.resolve(HfModelFolder.GENERATION_CONFIG),
        new ObjectMapper().writeValueAsString(Map.of("eos_token_id", List.of(imEnd),
            "temperature", 1.0, "top_p", 1.0)));
    return written;
  }

  /** A random model of {@code config} in memory, on {@code device}: {@link #weights} loaded. */
  public static Qwen3Model model(ModelConfig config, long seed, Device device) {
    return Qwen3Model.create(config, HfModelFolder.byName(weights(config, seed, TensorDtype.F32)), device);
  }

  /**
   * Random weights for a config: N(0, 0.02) matrices and biases, norm weights near 1 (not
   * exactly 1, so a test notices a norm weight that is ignored or misplaced).
   */
  public static List<HostTensor> weights(ModelConfig config, long seed, TensorDtype dtype) {
    SplittableRandom root = new SplittableRandom(seed);
    List<HostTensor> out = new ArrayList<>();
    for (var e : Qwen3Model.expectedTensors(config).entrySet()) {
      SplittableRandom rng = root.split();
      long n = 1;
      for (long d : e.getValue()) {
        n *= d;
      }
      float[] v = new float[Math.toIntExact(n)];
      boolean norm = e.getKey().endsWith("norm.weight");
      for (int i = 0; i < v.length; i++) {
        double z = gaussian(rng);
        v[i] = (float) (norm ? 1.0 + 0.1 * z : 0.02 * z);
      }
      out.add(new HostTensor(e.getKey(), dtype, e.getValue(), v));
    }
    return out;
  }

  /** Explicit Box-Muller, so the weights do not depend on the JDK's nextGaussian algorithm. */
  private static double gaussian(SplittableRandom rng) {
    double u = 1.0 - rng.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.nextDouble());
  }
}
