package arbor.judge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The spans of a root's final answer (JSON): a list's strings, or a lone string as one span.
 * Anything else (no answer, numbers, nested objects) is no span: an empty prediction.
 */
public final class FinalAnswer {
  private FinalAnswer() {}

  private static final ObjectMapper JSON = new ObjectMapper();

  public static List<String> spans(String json) {
    List<String> out = new ArrayList<>();
    if (json == null || json.isBlank()) return out;
    JsonNode node;
    try {
      node = JSON.readTree(json);
    } catch (IOException e) {
      return out;
    }
    if (node == null) return out;
    if (node.isTextual()) {
      out.add(node.asText());
    } else if (node.isArray()) {
      for (JsonNode n : node) if (n.isTextual()) out.add(n.asText());
    }
    return out;
  }
}
