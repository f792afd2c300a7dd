package arbor.rlm;

import arbor.rlm.policy.NodePath;
import arbor.rlm.policy.Policy;
import arbor.rlm.sandbox.Sandbox;
import arbor.rlm.sandbox.SandboxSession;
import arbor.rlm.sandbox.WorkerPool;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs rollout trees: a root node whose code may spawn children through {@code rlm_query} and
 * {@code rlm_query_batched}. Every node runs on its own virtual thread with its own REPL; the caps
 * of method.md section 2 (depth, children per node, nodes, tokens and wall time per tree) are
 * enforced outside the sandbox: the tree's wall time here, the rest by each {@link RunningNode}
 * as its {@link NodeBridge} admits host calls; a stopped node stops its running descendants.
 * Thread-safe: one runner serves many trees at once.
 */
public final class TreeRunner {
  private static final Logger LOG = LoggerFactory.getLogger(TreeRunner.class);

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
    RunningTree tree = new RunningTree(treeId, limits, t0 + limits.treeWallTime().toNanos(), treeSeed);
    tree.nodes.incrementAndGet();
    RunningNode root = new RunningNode(tree, NodePath.ROOT, null);
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
  private NodeRecord runNode(RunningNode node, String prompt, RlmContext context, Prompts.Role role, int childIndex) {
    long t0 = System.nanoTime();
    NodeLoop.Outcome outcome = null;
    try {
      listener.nodeStarted(node.id(), node.path.depth(), prompt);
      try (SandboxSession session = sandbox.open(context.toJson(), limits.bindQuestion() ? prompt : null,
          new NodeBridge(node, context, policy, this::runChild))) {
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

  private NodeRecord runChild(RunningNode child, String prompt, RlmContext context, int childIndex) {
    return runNode(child, prompt, context, Prompts.Role.CHILD, childIndex);
  }

  private NodeRecord record(RunningNode node, String prompt, int childIndex, NodeLoop.Outcome outcome, long t0) {
    RunningTree tree = node.tree;
    NodeRecord record = new NodeRecord(node.id(), node.parent == null ? null : node.parent.id(),
        tree.rootId(), node.path.depth(), childIndex, node.spawned.get(), prompt,
        outcome.finalAnswerJson(), outcome.status(), outcome.turns(), outcome.genTokens(),
        (System.nanoTime() - t0) / 1_000_000);
    tree.records.add(record);
    listener.nodeEnded(record);
    return record;
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
