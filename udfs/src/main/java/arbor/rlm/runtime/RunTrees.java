package arbor.rlm.runtime;

import arbor.conf.ApiKeys;
import arbor.conf.ArborConfig;
import arbor.policy.holder.CheckpointSource;
import arbor.policy.holder.SparkTaskDevice;
import arbor.rlm.TreeRunner;
import arbor.rlm.TreeSeed;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor side of the rollout stage: {@link TreeRows#TASK} rows in, {@link TreeRows#TREE}
 * rows out. The trees of one task all run at once, on the JVM's shared {@link RlmRuntime}, so
 * their turns batch together in the device's generation engine; rows come out in input order as
 * their trees end. A tree whose run fails is a row with status {@link TreeRows#INFRA_ERROR}, never
 * a failed task.
 */
public final class RunTrees implements MapPartitionsFunction<Row, Row> {
  private static final Logger LOG = LoggerFactory.getLogger(RunTrees.class);

  private final ArborConfig config;
  private final CheckpointSource checkpoints;
  private final ApiKeys keys;
  private final TaskProbe probe;

  /**
   * Hears each tree of a task end, on the executor (a progress meter; tests inject a fault with
   * it, to see a retried task leave no duplicate and no gap).
   */
  public interface TaskProbe extends Serializable {
    void treeEnded(int partition, int attempt, int treesEnded);

    TaskProbe NONE = (partition, attempt, treesEnded) -> {};
  }

  /** {@code keys}: the endpoint policies' API keys, read by the job and shipped with the task. */
  public RunTrees(ArborConfig config, CheckpointSource checkpoints, ApiKeys keys, TaskProbe probe) {
    this.config = config;
    this.checkpoints = checkpoints;
    this.keys = keys;
    this.probe = probe;
  }

  @Override
  public Iterator<Row> call(Iterator<Row> tasks) {
    if (!tasks.hasNext()) {
      return java.util.Collections.emptyIterator();
    }
    List<TreeTask> in = new ArrayList<>();
    tasks.forEachRemaining(row -> in.add(TreeTask.of(row)));
    TaskContext task = TaskContext.get();
    int partition = task == null ? 0 : task.partitionId();
    int attempt = task == null ? 0 : task.attemptNumber();
    // Which trees ran in which task attempt, in the executor's log: after a lost executor, its
    // log shows the trees it was running, and another's log their retry.
    String attemptName = task == null ? "outside Spark" : "task " + partition + "." + attempt + " in stage "
        + task.stageId() + "." + task.stageAttemptNumber() + " (TID " + task.taskAttemptId() + ")";
    LOG.info("rollouts: {} runs {} trees {}", attemptName, in.size(),
        in.stream().map(TreeTask::name).toList());
    RlmRuntime runtime = SharedRuntimes.of(config, config.rollouts().sandbox(), checkpoints, keys);
    TreeTask first = in.getFirst();
    RlmRuntime.Rollout rollout = runtime.open(config.rollouts().policy(), first.policyRun(), first.policyVersion(),
        SparkTaskDevice.current());
    List<CompletableFuture<Row>> trees = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (TreeTask t : in) {
      CompletableFuture<Row> f = new CompletableFuture<>();
      threads.add(Thread.ofVirtual().name("rollout-" + t.name()).start(() -> f.complete(run(rollout, t))));
      trees.add(f);
    }
    // The lease on the model is released when the last tree has ended.
    CompletableFuture.allOf(trees.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> rollout.close());
    if (task != null) {
      task.addTaskCompletionListener(t -> {
        // A task that is killed (or fails) stops its trees (a tree's thread interrupted stops
        // its root, and so the whole tree) rather than leave them running for nobody.
        threads.forEach(Thread::interrupt);
      });
    }
    return new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < trees.size();
      }

      @Override
      public Row next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        Row row = trees.get(next++).join();
        probe.treeEnded(partition, attempt, next);
        if (next == trees.size()) {
          LOG.info("rollouts: {} ended its {} trees", attemptName, trees.size());
        }
        return row;
      }
    };
  }

  private Row run(RlmRuntime.Rollout rollout, TreeTask task) {
    TreeRows.TreeKey key = new TreeRows.TreeKey(task.runId(), task.step(), task.queryId(), task.sample(), rollout.kind(),
        rollout.version());
    long t0 = System.nanoTime();
    try {
      TreeRunner.TreeResult tree = rollout.runner().run(TreeRows.treeId(task.queryId(), task.sample()), task.question(),
          task.context(), TreeSeed.of(task.seedRun(), task.seedStep(), task.queryId(), task.sample()));
      return TreeRows.tree(key, tree.nodes(), tree.latencyMillis());
    } catch (RuntimeException | LinkageError e) {
      return TreeRows.failed(key, task.question(), e, (System.nanoTime() - t0) / 1_000_000);
    }
  }
}
