package arbor.rlm;

import arbor.rlm.policy.NodePath;
import arbor.rlm.policy.Policy;
import arbor.rlm.sandbox.HostBridge;
import arbor.rlm.sandbox.HostBridge.HostCallException;
import arbor.rlm.sandbox.Sandbox;
import arbor.rlm.sandbox.SandboxSession;
import arbor.rlm.sandbox.WorkerPool;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import arbor.rlm.policy.Generation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs rollout trees: a root node whose code may spawn children through {@code rlm_query} and
 * {@code rlm_query_batched}. Every node runs on its own virtual thread with its own REPL; the caps
 * of method.md section 2 (depth, children per node, nodes, tokens and wall time per tree) are
 * enforced here, outside the sandbox; a stopped node stops its running descendants. Thread-safe:
 * one runner serves many trees at once.
 */
public final class TreeRunner {
  private static final Logger LOG = LoggerFactory.getLogger(TreeRunner.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Sandbox sandbox;
  private final Policy policy;
  private final RlmLimits limits;
  private final NodeLoop loop;
  private final TreeListener listener;
  /** Why REPLs could not be opened, each reason logged once: a full batch may fail hundreds alike. */
  private final Set<String> openFailuresLogged = ConcurrentHashMap.newKeySet();

  public TreeRunner(Sandbox sandbox, Policy policy, Prompts prompts, RlmLimits limits) {
    this(sandbox, policy, prompts, limits, TreeListener.NONE);
  }

  /** A runner that tells {@code listener} of every node and turn as the trees unfold. */
  public TreeRunner(Sandbox sandbox, Policy policy, Prompts prompts, RlmLimits limits, TreeListener listener) {
    this.sandbox = sandbox;
    this.policy = policy;
    this.limits = limits;
    this.loop = new NodeLoop(policy, prompts, limits);
    this.listener = listener;
  }

  /** Hears a tree unfold; called from the nodes' threads, so implementations are thread-safe. */
  public interface TreeListener {
    void nodeStarted(String nodeId, int depth, String prompt);

    void turnEnded(String nodeId, Turn turn);

    void nodeEnded(NodeRecord node);

    TreeListener NONE = new TreeListener() {
      @Override
      public void nodeStarted(String nodeId, int depth, String prompt) {}

      @Override
      public void turnEnded(String nodeId, Turn turn) {}

      @Override
      public void nodeEnded(NodeRecord node) {}
    };
  }

  /** A finished tree: its nodes in path order (root first), and its wall time. */
  public record TreeResult(List<NodeRecord> nodes, long latencyMillis) {
    public NodeRecord root() {
      return nodes.getFirst();
    }
  }

  /** Runs one tree to its end and returns its records; {@code treeId} prefixes the node ids and seeds it. */
  public TreeResult run(String treeId, String question, RlmContext context) {
    return run(treeId, question, context, TreeSeed.ofTree(treeId, 0));
  }

  /**
   * Runs one tree whose turns draw their seeds from {@code treeSeed} ({@link TreeSeed#of}), so the
   * same seed reproduces the tree whatever the timing of its threads.
   */
  public TreeResult run(String treeId, String question, RlmContext context, long treeSeed) {
    long t0 = System.nanoTime();
    Tree tree = new Tree(treeId, t0 + limits.treeWallTime().toNanos(), treeSeed);
    tree.nodes.incrementAndGet();
    Node root = new Node(tree, NodePath.ROOT, null);
    Prompts.Role role = context instanceof RlmContext.Single ? Prompts.Role.SINGLE : Prompts.Role.ROOT_MULTI;
    Thread rootThread = Thread.ofVirtual().name("rlm-" + treeId + "-root").unstarted(
        () -> runNode(root, question, context, role, -1));
    root.thread = rootThread;
    tree.live.enter();
    rootThread.start();
    // The tree's wall-time budget: when it runs out, the root and all its descendants stop.
    Thread budget = Thread.ofVirtual().name("rlm-" + treeId + "-budget").start(() -> {
      try {
        rootThread.join(limits.treeWallTime());
        if (rootThread.isAlive()) {
          root.stop(NodeStatus.BUDGET);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    try {
      rootThread.join();
    } catch (InterruptedException e) {
      root.stop(NodeStatus.CANCELLED);
      Thread.currentThread().interrupt();
    }
    // The root has ended and so stopped every descendant; the tree is returned only when each
    // node it started has ended and recorded itself, and no host call of it is still running.
    tree.live.awaitIdle();
    budget.interrupt();
    List<NodeRecord> nodes = new ArrayList<>(tree.records);
    nodes.sort(Comparator.comparing(r -> pathKey(r.nodeId())));
    return new TreeResult(nodes, (System.nanoTime() - t0) / 1_000_000);
  }

  /** Runs one node on the calling thread, which {@code tree.live} already counts. */
  private NodeRecord runNode(Node node, String prompt, RlmContext context, Prompts.Role role, int childIndex) {
    long t0 = System.nanoTime();
    NodeLoop.Outcome outcome = null;
    try {
      listener.nodeStarted(node.id(), node.path.depth(), prompt);
      try (SandboxSession session = sandbox.open(context.toJson(), limits.bindQuestion() ? prompt : null,
          new Bridge(node, context))) {
        outcome = loop.run(new NodeLoop.NodeSpec(node.path, prompt, context, role, node.tree.seed), session, node,
            turn -> listener.turnEnded(node.id(), turn));
        // Ended for whatever reason: nothing it started may outlive it.
        node.end();
      } catch (WorkerPool.SandboxUnavailableException e) {
        // No REPL could be opened (pool closed, no free slot in time, a worker would not start):
        // the infrastructure failed the node, whose policy never ran, so it is no zero reward.
        if (openFailuresLogged.add(String.valueOf(e.getMessage()))) {
          LOG.warn("node {} got no REPL and ends sandbox_lost (later nodes failing alike are not logged): {}",
              node.id(), e.getMessage(), e.getCause());
        }
        NodeStatus stopped = node.stopReason();
        outcome = new NodeLoop.Outcome(stopped != null ? stopped : NodeStatus.SANDBOX_LOST, null, List.of(), 0);
      } catch (RuntimeException e) {
        NodeStatus stopped = node.stopReason();
        outcome = new NodeLoop.Outcome(stopped != null ? stopped : NodeStatus.SANDBOX_ERROR, null, List.of(), 0);
      }
    } finally {
      node.end();
      if (outcome == null) {
        // An Error is on its way up; the tree still gets this node's record.
        outcome = new NodeLoop.Outcome(NodeStatus.SANDBOX_ERROR, null, List.of(), 0);
      }
    }
    try {
      return record(node, prompt, childIndex, outcome, t0);
    } finally {
      node.tree.live.exit();
    }
  }

  private NodeRecord record(Node node, String prompt, int childIndex, NodeLoop.Outcome outcome, long t0) {
    Tree tree = node.tree;
    NodeRecord record = new NodeRecord(node.id(), node.parent == null ? null : node.parent.id(),
        tree.rootId(), node.path.depth(), childIndex, node.spawned.get(), prompt,
        outcome.finalAnswerJson(), outcome.status(), outcome.turns(), outcome.genTokens(),
        (System.nanoTime() - t0) / 1_000_000);
    tree.records.add(record);
    listener.nodeEnded(record);
    return record;
  }

  /** The host side of one node's built-ins that leave the sandbox. */
  private final class Bridge implements HostBridge {
    private final Node node;
    private final RlmContext context;

    Bridge(Node node, RlmContext context) {
      this.node = node;
      this.context = context;
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
      boolean atDepthLimit = node.path.depth() >= limits.maxDepth();
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
      threads.forEach(TreeRunner::joinQuietly);
      return List.of(answers);
    }

    /**
     * One plain completion on its own thread, which the node's end interrupts: a stopped node
     * leaves no generation running. Its tokens count against the tree's budget.
     */
    private String completeOne(String prompt, int maxNewTokens, long seed) throws HostCallException {
      if (maxNewTokens < 1) {
        throw new HostCallException("llm_query refused: the tree's budget of "
            + limits.maxTokensPerTree() + " generated tokens is spent");
      }
      CompletableFuture<Generation> result = new CompletableFuture<>();
      Thread worker = Thread.ofVirtual().name("rlm-" + node.id() + "-llm").unstarted(() -> {
        try {
          result.complete(policy.complete(node.path, prompt, seed, maxNewTokens));
        } catch (Throwable e) {
          result.completeExceptionally(e);
        }
      });
      HostCall call = new HostCall(worker, result);
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
        Node child = node.newChild(childIndex);
        RlmContext finalContext = childContext;
        int slot = i;
        Thread t = Thread.ofVirtual().name("rlm-" + child.id()).unstarted(() -> records[slot] =
            runNode(child, prompt.asText(), finalContext, Prompts.Role.CHILD, childIndex));
        child.thread = t;
        threads.add(t);
        node.tree.live.enter();
        t.start();
      }
      threads.forEach(TreeRunner::joinQuietly);
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
  }

  /** One tree's shared state: its ids, budgets and finished records. */
  private static final class Tree {
    final String id;
    final long deadlineNanos;
    final long seed;
    final AtomicInteger nodes = new AtomicInteger();
    final AtomicLong tokens = new AtomicLong();
    final ConcurrentLinkedQueue<NodeRecord> records = new ConcurrentLinkedQueue<>();
    final Liveness live = new Liveness();

    Tree(String id, long deadlineNanos, long seed) {
      this.id = id;
      this.deadlineNanos = deadlineNanos;
      this.seed = seed;
    }

    String rootId() {
      return id + ":root";
    }
  }

  /** A node while it runs: its place in the tree, its children, and the stop that ends it. */
  private final class Node implements NodeGuard {
    final Tree tree;
    final NodePath path;
    final Node parent;
    final AtomicInteger spawned = new AtomicInteger();
    /** Child prompts asked for so far, refused ones included: the next child index. */
    final AtomicInteger requested = new AtomicInteger();
    /** llm_query prompts sent so far: the index of the next one's seed. */
    final AtomicInteger llmCalls = new AtomicInteger();
    final List<Node> children = new ArrayList<>();
    /** llm_query prompts admitted against the node's cap. */
    final AtomicInteger llmAdmitted = new AtomicInteger();
    private final Set<HostCall> calls = new HashSet<>();
    volatile Thread thread;
    volatile NodeStatus stop;
    /** Set once the node's loop is over: it may start nothing more. */
    volatile boolean ended;

    Node(Tree tree, NodePath path, Node parent) {
      this.tree = tree;
      this.path = path;
      this.parent = parent;
    }

    String id() {
      return tree.id + ":" + path;
    }

    /** Null when a child may be created now, else why not. Reserves the tree's node slot. */
    String refuseChild() {
      if (stop != null || ended) {
        return "the parent was stopped";
      }
      if (spawned.get() >= limits.maxChildrenPerNode()) {
        return "this node already has " + limits.maxChildrenPerNode() + " children, the most it may spawn";
      }
      if (tree.nodes.incrementAndGet() > limits.maxNodesPerTree()) {
        tree.nodes.decrementAndGet();
        return "the tree already has " + limits.maxNodesPerTree() + " nodes, the most it may hold";
      }
      return null;
    }

    long llmSeed(int index) {
      return TreeSeed.llmQuery(tree.seed, path, index);
    }

    synchronized Node newChild(int childIndex) {
      spawned.getAndIncrement();
      Node child = new Node(tree, path.child(childIndex), this);
      children.add(child);
      if (stop != null || ended) {
        child.stop = NodeStatus.CANCELLED;
      }
      return child;
    }

    /** Stops this node and, as cancelled, every descendant still running. */
    void stop(NodeStatus status) {
      synchronized (this) {
        if (stop == null) {
          stop = status;
        }
      }
      stopDescendants();
      Thread t = thread;
      if (t != null && !ended) {
        t.interrupt();
      }
    }

    /** The node's loop is over: its children and its plain completions stop with it. */
    void end() {
      synchronized (this) {
        ended = true;
      }
      stopDescendants();
    }

    private void stopDescendants() {
      List<Node> kids;
      List<HostCall> running;
      synchronized (this) {
        kids = List.copyOf(children);
        running = List.copyOf(calls);
      }
      kids.forEach(k -> k.stop(NodeStatus.CANCELLED));
      running.forEach(HostCall::cancel);
    }

    /** False when the node is stopping, so that the call must not start. */
    synchronized boolean track(HostCall call) {
      if (stop != null || ended) {
        return false;
      }
      calls.add(call);
      return true;
    }

    synchronized void untrack(HostCall call) {
      calls.remove(call);
    }

    /** Counts {@code n} more llm_query prompts against this node's cap, or refuses them all. */
    void admitLlmCalls(int n) throws HostCallException {
      if (tokensLeft() < 1) {
        throw new HostCallException("llm_query refused: the tree's budget of "
            + limits.maxTokensPerTree() + " generated tokens is spent");
      }
      NodeStatus stopped = stopReason();
      if (stopped != null) {
        throw new HostCallException("llm_query refused: the node is stopping (" + stopped.key() + ")");
      }
      int after = llmAdmitted.addAndGet(n);
      if (after > limits.maxLlmCallsPerNode()) {
        llmAdmitted.addAndGet(-n);
        throw new HostCallException("llm_query refused: " + n + " more prompt(s) would pass this node's cap of "
            + limits.maxLlmCallsPerNode() + " llm_query prompts (" + (after - n) + " sent so far)");
      }
    }

    @Override
    public int tokensLeft() {
      return (int) Math.max(0, Math.min(Integer.MAX_VALUE, limits.maxTokensPerTree() - tree.tokens.get()));
    }

    @Override
    public NodeStatus stopReason() {
      NodeStatus stopped = stoppedBy();
      if (stopped != null) {
        return stopped;
      }
      return tree.tokens.get() >= limits.maxTokensPerTree() ? NodeStatus.BUDGET : null;
    }

    @Override
    public NodeStatus stoppedBy() {
      if (stop != null) {
        return stop;
      }
      return System.nanoTime() > tree.deadlineNanos ? NodeStatus.BUDGET : null;
    }

    @Override
    public void chargeTokens(int tokens) {
      tree.tokens.addAndGet(tokens);
    }
  }

  /** A plain completion in flight: cancelling it interrupts its generation. */
  private record HostCall(Thread thread, CompletableFuture<Generation> result) {
    void cancel() {
      result.cancel(false);
      thread.interrupt();
    }
  }

  /** Counts a tree's running node threads and host calls; the tree ends when none is left. */
  private static final class Liveness {
    private int live;

    synchronized void enter() {
      live++;
    }

    synchronized void exit() {
      if (--live == 0) {
        notifyAll();
      }
    }

    synchronized void awaitIdle() {
      boolean interrupted = false;
      while (live > 0) {
        try {
          wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
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

  /** Sorts node ids by their path: root, root.0, root.0.0, root.1, ..., numerically. */
  private static String pathKey(String nodeId) {
    String path = nodeId.substring(nodeId.lastIndexOf(':') + 1);
    StringBuilder key = new StringBuilder();
    for (String part : path.split("\\.")) {
      key.append(part.equals("root") ? "" : String.format("%06d", Integer.parseInt(part))).append('.');
    }
    return key.toString();
  }
}
