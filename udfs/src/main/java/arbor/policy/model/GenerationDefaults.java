package arbor.policy.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;

/**
 * What a checkpoint's {@code generation_config.json} recommends. Arbor's run configuration
 * decides the sampling it actually uses; these are the model author's defaults, and the extra
 * end-of-sequence ids are always honoured.
 */
public record GenerationDefaults(double temperature, double topP, int topK,
    List<Integer> eosTokenIds) {

  /** No file: plain sampling, no extra stop ids. */
  public static final GenerationDefaults NONE = new GenerationDefaults(1.0, 1.0, 0, List.of());

  public GenerationDefaults {
    eosTokenIds = List.copyOf(eosTokenIds);
  }

  public static GenerationDefaults parse(String json) {
    try {
      JsonNode n = new ObjectMapper().readTree(json);
      List<Integer> eos = new ArrayList<>();
      JsonNode e = n.get("eos_token_id");
      if (e != null && e.isArray()) {
        e.forEach(x -> eos.add(x.asInt()));
      } else if (e != null && e.canConvertToInt()) {
        eos.add(e.asInt());
      }
      return new GenerationDefaults(n.path("temperature").asDouble(1.0),
          n.path("top_p").asDouble(1.0), n.path("top_k").asInt(0), eos);
    } catch (Exception e) {
      throw new IllegalArgumentException("generation_config.json is not valid JSON: "
          + e.getMessage(), e);
    }
  }
}
