package arbor.jobs.bench.rlm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** The string spans of a node's final answer (JSON); anything else in it counts as no span. */
public final class FinalSpans {
  private FinalSpans() {}

  private static final ObjectMapper JSON = new ObjectMapper();

  public static List<String> of(String finalJson) {
    List<String> out = new ArrayList<>();
    if (finalJson == null) {
      return out;
    }
    try {
      JsonNode node = JSON.readTree(finalJson);
      if (node.isArray()) {
        node.forEach(n -> {
          if (n.isTextual()) {
            out.add(n.asText());
          }
        });
      }
    } catch (IOException e) {
      // A final answer that is not JSON has no spans.
    }
    return out;
  }
}
