package arbor.rlm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/** A node's {@code context}: one paper's text, or papers by id. */
public sealed interface RlmContext {
  ObjectMapper JSON = new ObjectMapper();

  record Single(String text) implements RlmContext {}

  record Papers(Map<String, String> byId) implements RlmContext {
    public Papers {
      byId = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(byId));
    }
  }

  /** The context as the JSON value the sandbox binds to {@code context}. */
  default String toJson() {
    try {
      return switch (this) {
        case Single s -> JSON.writeValueAsString(s.text());
        case Papers p -> JSON.writeValueAsString(p.byId());
      };
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A context from a JSON value: a str, or an object of str. Anything else is an error. */
  static RlmContext fromJson(JsonNode node) {
    if (node.isTextual()) {
      return new Single(node.asText());
    }
    if (node.isObject()) {
      Map<String, String> map = new LinkedHashMap<>();
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> f = fields.next();
        if (!f.getValue().isTextual()) {
          throw new IllegalArgumentException("context['" + f.getKey() + "'] must be a str, got "
              + f.getValue().getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
        map.put(f.getKey(), f.getValue().asText());
      }
      return new Papers(map);
    }
    throw new IllegalArgumentException("a context must be a str or a dict of paper id -> text, got "
        + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
  }

  /**
   * The metadata message of method.md section 4: the context's type, its total characters, and
   * per-paper lengths (at most 100 listed).
   */
  default String metadata() {
    StringBuilder sb = new StringBuilder();
    switch (this) {
      case Single s -> sb.append("Your context is a str of ").append(s.text().length())
          .append(" characters: the text of one paper.");
      case Papers p -> {
        long total = p.byId().values().stream().mapToLong(String::length).sum();
        sb.append("Your context is a dict of ").append(p.byId().size()).append(" papers (paper id -> text), ")
            .append(total).append(" characters in total. Characters per paper:");
        int listed = 0;
        for (Map.Entry<String, String> e : p.byId().entrySet()) {
          if (listed++ == 100) {
            sb.append("\n... and ").append(p.byId().size() - 100).append(" more");
            break;
          }
          sb.append("\n- ").append(e.getKey()).append(": ").append(e.getValue().length());
        }
      }
    }
    return sb.toString();
  }
}
