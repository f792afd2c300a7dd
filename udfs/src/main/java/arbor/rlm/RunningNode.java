package arbor.rlm;

import arbor.rlm.policy.Generation;
import arbor.rlm.policy.NodePath;
import arbor.rlm.sandbox.HostBridge.HostCallException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node while it runs: its place in the tree, its children and plain completions in flight, the
 * stop that ends them, and its budget (children per node, nodes and tokens per tree, llm_query
 * prompts per node, the tree's wall time). What its loop asks between steps is {@link NodeGuard}.
 */
final class RunningNode implements NodeGuard {
  final RunningTree tree;
  final NodePath path;
  final RunningNode parent;
  final AtomicInteger spawned = new AtomicInteger();
  /** Child prompts asked for so far, refused ones included: the next child index. */
  final AtomicInteger requested = new AtomicInteger();
  /** llm_query prompts sent so far: the index of the next one's seed. */
  final AtomicInteger llmCalls = new AtomicInteger();
  /** llm_query prompts admitted against the node's cap. */
  private final AtomicInteger llmAdmitted = new AtomicInteger();
  private final List<RunningNode> children = new ArrayList<>();
  private final Set<HostCall> calls = new HashSet<>();
  volatile Thread thread;
  private volatile NodeStatus stop;
  /** Set once the node's loop is over: it may start nothing more. */
  volatile boolean ended;

  RunningNode(RunningTree tree, NodePath path, RunningNode parent) {
    this.tree = tree;
    this.path = path;
    this.parent = parent;
  }

  String id() {
    return tree.id + ":" + path;
  }

  /** Null when a child may be created now, else why not. Reserves the tree's node slot. */
  String refuseChild() {
    RlmLimits limits = tree.limits;
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

  synchronized RunningNode newChild(int childIndex) {
    spawned.getAndIncrement();
    RunningNode child = new RunningNode(tree, path.child(childIndex), this);
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
    List<RunningNode> kids;
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
    RlmLimits limits = tree.limits;
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
    return (int) Math.max(0, Math.min(Integer.MAX_VALUE, tree.limits.maxTokensPerTree() - tree.tokens.get()));
  }

  @Override
  public NodeStatus stopReason() {
    NodeStatus stopped = stoppedBy();
    if (stopped != null) {
      return stopped;
    }
    return tree.tokens.get() >= tree.limits.maxTokensPerTree() ? NodeStatus.BUDGET : null;
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

  /** A plain completion in flight: cancelling it interrupts its generation. */
  record HostCall(Thread thread, CompletableFuture<Generation> result) {
    void cancel() {
      result.cancel(false);
      thread.interrupt();
    }
  }
}
