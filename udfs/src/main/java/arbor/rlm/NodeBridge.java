package arbor.rlm;

import arbor.rlm.policy.Generation;
import arbor.rlm.policy.Policy;
import arbor.rlm.sandbox.HostBridge;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The host side of one node's built-ins that leave the sandbox: {@code llm_query} and its batch
 * (plain completions of the policy, on threads the node's end interrupts) and {@code rlm_query}
 * and its batch (children, each run by {@link Children} on its own thread). Each call is admitted
 * against the node's budget first; at the depth limit a child's prompt becomes a plain completion.
 */
final class NodeBridge implements HostBridge {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Runs one child node to its end on the calling thread, which the tree already counts. */
  interface Children {
    NodeRecord run(RunningNode child, String prompt, RlmContext context, int childIndex);
  }

  private final RunningNode node;
  private final RlmContext context;
  private final Policy policy;
  private final Children children;

  NodeBridge(RunningNode node, RlmContext context, Policy policy, Children children) {
    this.node = node;
    this.context = context;
    this.policy = policy;
    this.children = children;
  }

  @Override
  public String call(String name, String argsJson) throws HostCallException {
    // Counted, so that the tree is not returned while a call of one of its nodes still runs.
    node.tree.live.enter();
    try {
      if (node.ended) {
        throw new HostCallException(name + ": the node has ended");
      }
      return dispatch(name, argsJson);
    } finally {
      node.tree.live.exit();
    }
  }

  private String dispatch(String name, String argsJson) throws HostCallException {
    JsonNode args = parse(argsJson);
    boolean atDepthLimit = node.path.depth() >= node.tree.limits.maxDepth();
    return switch (name) {
      case "llm_query" -> json(complete(text(args.get(0), "prompt")));
      case "llm_query_batched" -> json(completeAll(list(args.get(0), "prompts")));
      case "rlm_query" -> atDepthLimit
          ? json(complete(text(args.get(0), "prompt")))
          : spawn(List.of(args.get(0)), args.size() > 1 && !args.get(1).isNull()
              ? List.of(args.get(1)) : null).get(0).toString();
      case "rlm_query_batched" -> {
        List<JsonNode> prompts = list(args.get(0), "prompts");
        List<JsonNode> contexts = args.size() > 1 && !args.get(1).isNull() ? list(args.get(1), "context_list") : null;
        if (contexts != null && contexts.size() != prompts.size()) {
          throw new HostCallException("rlm_query_batched: context_list has " + contexts.size()
              + " items but prompts has " + prompts.size() + "; give one context per prompt");
        }
        if (atDepthLimit) {
          List<String> texts = new ArrayList<>();
          for (JsonNode p : prompts) {
            texts.add(text(p, "prompt"));
          }
          yield json(completeAll(texts.stream().map(JSON::valueToTree).map(JsonNode.class::cast).toList()));
        }
        ArrayNode out = JSON.createArrayNode();
        spawn(prompts, contexts).forEach(out::add);
        yield out.toString();
      }
      default -> throw new HostCallException("unknown host call " + name);
    };
  }

  private String complete(String prompt) throws HostCallException {
    node.admitLlmCalls(1);
    return completeOne(prompt, node.tokensLeft(), node.llmSeed(node.llmCalls.getAndIncrement()));
  }

  private List<String> completeAll(List<JsonNode> prompts) throws HostCallException {
    List<String> texts = new ArrayList<>();
    for (JsonNode p : prompts) {
      texts.add(text(p, "prompt"));
    }
    node.admitLlmCalls(texts.size());
    // The prompts of one batch share what is left of the budget, so the batch cannot pass it.
    int bound = Math.max(1, node.tokensLeft() / Math.max(1, texts.size()));
    String[] answers = new String[texts.size()];
    List<Thread> threads = new ArrayList<>();
    // Seeds follow the prompts' order in the calls, not the order the completions start in.
    int first = node.llmCalls.getAndAdd(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      int slot = i;
      threads.add(Thread.ofVirtual().start(() -> {
        try {
          answers[slot] = completeOne(texts.get(slot), bound, node.llmSeed(first + slot));
        } catch (HostCallException | RuntimeException e) {
          answers[slot] = "Error: " + e.getMessage();
        }
      }));
    }
    threads.forEach(NodeBridge::joinQuietly);
    return List.of(answers);
  }

  /**
   * One plain completion on its own thread, which the node's end interrupts: a stopped node
   * leaves no generation running. Its tokens count against the tree's budget.
   */
  private String completeOne(String prompt, int maxNewTokens, long seed) throws HostCallException {
    if (maxNewTokens < 1) {
      throw new HostCallException("llm_query refused: the tree's budget of "
          + node.tree.limits.maxTokensPerTree() + " generated tokens is spent");
    }
    CompletableFuture<Generation> result = new CompletableFuture<>();
    Thread worker = Thread.ofVirtual().name("rlm-" + node.id() + "-llm").unstarted(() -> {
      try {
        result.complete(policy.complete(node.path, prompt, seed, maxNewTokens));
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    });
    RunningNode.HostCall call = new RunningNode.HostCall(worker, result);
    if (!node.track(call)) {
      throw new HostCallException("llm_query refused: the node was stopped");
    }
    try {
      worker.start();
      Generation gen = result.get();
      node.chargeTokens(gen.tokenCount());
      return gen.text();
    } catch (CancellationException e) {
      throw new HostCallException("llm_query was cancelled: the node was stopped");
    } catch (InterruptedException e) {
      call.cancel();
      Thread.currentThread().interrupt();
      throw new HostCallException("llm_query was interrupted");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new HostCallException("llm_query failed: "
          + (cause instanceof Policy.PolicyException ? cause.getMessage() : cause.toString()));
    } finally {
      node.untrack(call);
    }
  }

  /**
   * Runs one child per prompt, concurrently; returns each child's final answer in prompt order,
   * or an error string in its slot when that child could not run or gave no answer.
   */
  private List<JsonNode> spawn(List<JsonNode> prompts, List<JsonNode> contexts) {
    JsonNode[] answers = new JsonNode[prompts.size()];
    NodeRecord[] records = new NodeRecord[prompts.size()];
    List<Thread> threads = new ArrayList<>();
    // A child's index is its prompt's position among every prompt this node has asked for, in
    // call order, refused ones included: the position in an rlm_query_batched call, or the order
    // of rlm_query calls. It names the child (root.2 is the third prompt) and seeds it, so
    // neither depends on which children were refused or started first.
    int first = node.requested.getAndAdd(prompts.size());
    for (int i = 0; i < prompts.size(); i++) {
      JsonNode prompt = prompts.get(i);
      JsonNode ctx = contexts == null ? null : contexts.get(i);
      String refusal = !prompt.isTextual() ? "the prompt must be a str" : null;
      RlmContext childContext = null;
      if (refusal == null) {
        try {
          childContext = ctx == null || ctx.isNull() ? context : RlmContext.fromJson(ctx);
        } catch (IllegalArgumentException e) {
          refusal = e.getMessage();
        }
      }
      if (refusal == null) {
        refusal = node.refuseChild();
      }
      if (refusal != null) {
        answers[i] = JSON.getNodeFactory().textNode("Error: " + refusal);
        continue;
      }
      int childIndex = first + i;
      RunningNode child = node.newChild(childIndex);
      RlmContext finalContext = childContext;
      int slot = i;
      Thread t = Thread.ofVirtual().name("rlm-" + child.id()).unstarted(() -> records[slot] =
          children.run(child, prompt.asText(), finalContext, childIndex));
      child.thread = t;
      threads.add(t);
      node.tree.live.enter();
      t.start();
    }
    threads.forEach(NodeBridge::joinQuietly);
    for (int i = 0; i < answers.length; i++) {
      if (answers[i] == null) {
        NodeRecord rec = records[i];
        answers[i] = rec != null && rec.status() == NodeStatus.FINAL
            ? parse(rec.finalAnswerJson())
            : JSON.getNodeFactory().textNode("Error: the child ended with status "
                + (rec == null ? "unknown" : rec.status().key()) + " and no answer");
      }
    }
    return List.of(answers);
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      return JSON.getNodeFactory().textNode(json);
    }
  }

  private static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String text(JsonNode node, String what) throws HostCallException {
    if (node == null || !node.isTextual()) {
      throw new HostCallException(what + " must be a str");
    }
    return node.asText();
  }

  private static List<JsonNode> list(JsonNode node, String what) throws HostCallException {
    if (node == null || !node.isArray()) {
      throw new HostCallException(what + " must be a list");
    }
    List<JsonNode> out = new ArrayList<>();
    node.forEach(out::add);
    return out;
  }

  /**
   * Waits for {@code t} to end even when this thread is interrupted meanwhile (the interrupt is
   * kept for the caller). A parent stopped by its budget has already stopped its children; it
   * must still wait for them, or the tree would be returned before their records are in.
   */
  private static void joinQuietly(Thread t) {
    boolean interrupted = false;
    while (true) {
      try {
        t.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
