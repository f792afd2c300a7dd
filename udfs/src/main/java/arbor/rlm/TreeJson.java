package arbor.rlm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;

/**
 * A finished tree as one JSON document, for scripts and notebooks: its nodes with their turns
 * (response, code, observation), final answers (as JSON values, not strings) and statuses. The
 * full prompts are left out (each turn carries the number of its messages); the tables hold them.
 */
public final class TreeJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TreeJson() {}

  public static ObjectNode of(TreeRunner.TreeResult tree) {
    ObjectNode doc = JSON.createObjectNode();
    doc.put("root_id", tree.root().rootId());
    doc.put("latency_ms", tree.latencyMillis());
    doc.put("status", tree.root().status().key());
    doc.set("final_answer", answer(tree.root().finalAnswerJson()));
    ArrayNode nodes = doc.putArray("nodes");
    for (NodeRecord n : tree.nodes()) {
      ObjectNode node = nodes.addObject();
      node.put("node_id", n.nodeId());
      node.put("parent_id", n.parentId());
      node.put("depth", n.depth());
      node.put("child_index", n.childIndex());
      node.put("num_children", n.numChildren());
      node.put("prompt", n.prompt());
      node.put("status", n.status().key());
      node.set("final_answer", answer(n.finalAnswerJson()));
      node.put("gen_tokens", n.genTokens());
      node.put("latency_ms", n.latencyMillis());
      ArrayNode turns = node.putArray("turns");
      for (Turn t : n.turns()) {
        ObjectNode turn = turns.addObject();
        turn.put("turn", t.index());
        turn.put("prompt_messages", t.prompt().size());
        turn.put("response", t.response());
        ArrayNode code = turn.putArray("code");
        t.code().forEach(code::add);
        turn.put("observation", t.observation());
        turn.put("repl_error", t.replError());
        turn.put("gen_ms", t.genMillis());
        turn.put("exec_ms", t.execMillis());
      }
    }
    return doc;
  }

  public static String write(TreeRunner.TreeResult tree) {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(of(tree));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode answer(String json) {
    if (json == null) {
      return JSON.nullNode();
    }
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      return JSON.getNodeFactory().textNode(json);
    }
  }
}
