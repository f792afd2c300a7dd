package arbor.rlm.policy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plays recorded responses, turn by turn, from a map of node path to that node's responses:
 * {@code {"root": ["...", "..."], "root.0": ["..."], "root.1.0": ["..."]}}. For debugging, and
 * for tests that need exact code in the REPL. A node with no response left is a policy error.
 * Plain completions ({@code llm_query}) come from the key {@code "<path>#llm"} when present.
 */
public final class ReplayPolicy implements Policy {
  private final Map<String, List<String>> responses;
  private final Map<String, AtomicInteger> next = new ConcurrentHashMap<>();

  public ReplayPolicy(Map<String, List<String>> responses) {
    Map<String, List<String>> copy = new LinkedHashMap<>();
    responses.forEach((k, v) -> copy.put(k, List.copyOf(v)));
    this.responses = Map.copyOf(copy);
  }

  public static ReplayPolicy fromFile(Path file) throws IOException {
    Map<String, List<String>> map = new ObjectMapper().readValue(file.toFile(),
        new TypeReference<LinkedHashMap<String, List<String>>>() {});
    return new ReplayPolicy(map);
  }

  /**
   * Response number {@code turn} of the node's list: by turn rather than by a counter, so one
   * replay serves any number of trees at once (the samples of a step are identical trees).
   */
  @Override
  public Generation generate(PolicyCall call) throws PolicyException {
    String key = call.node().toString();
    List<String> list = responses.get(key);
    if (list == null || call.turn() >= list.size()) {
      throw new PolicyException("replay has no response " + (call.turn() + 1) + " for node " + key
          + (list == null ? " (no such key)" : " (it holds " + list.size() + ")"));
    }
    return Generation.ofText(list.get(call.turn()));
  }

  @Override
  public String complete(NodePath node, String prompt) throws PolicyException {
    return take(node + "#llm");
  }

  private String take(String key) throws PolicyException {
    List<String> list = responses.get(key);
    int i = next.computeIfAbsent(key, k -> new AtomicInteger()).getAndIncrement();
    if (list == null || i >= list.size()) {
      throw new PolicyException("replay has no response " + (i + 1) + " for node " + key
          + (list == null ? " (no such key)" : " (it holds " + list.size() + ")"));
    }
    return list.get(i);
  }
}
