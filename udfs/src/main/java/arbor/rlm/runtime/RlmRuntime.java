package arbor.rlm.runtime;

import ai.djl.Device;
import arbor.conf.ApiKeys;
import arbor.conf.ArborConfig;
import arbor.conf.DjlPolicySettings;
import arbor.conf.PolicyKind;
import arbor.conf.RolloutSettings.SandboxMode;
import arbor.policy.generate.ChatGenerator;
import arbor.policy.generate.GenerationEngine;
import arbor.policy.holder.CheckpointSource;
import arbor.policy.holder.ModelHolder;
import arbor.policy.holder.PolicyVersions;
import arbor.policy.kernels.TorchThreads;
import arbor.rlm.Prompts;
import arbor.rlm.RlmLimits;
import arbor.rlm.TreeRunner;
import arbor.rlm.policy.DjlPolicy;
import arbor.rlm.sandbox.InProcessSandbox;
import arbor.rlm.sandbox.Sandbox;
import arbor.rlm.sandbox.SandboxLimits;
import arbor.rlm.sandbox.WorkerPool;
import arbor.rlm.sandbox.WorkerPoolConfig;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The RLM runtime of one JVM: the one place that builds the sandbox, the prompts, the tree caps
 * and the policies from the configuration ({@link FixedPolicies}; djl policies leased from a
 * model holder per device), and hands out tree runners over them. On an executor every task
 * shares one runtime ({@link SharedRuntimes}): one sandbox pool, one model holder per device (so
 * the decode steps of every tree in the JVM batch together in one generation engine), one client
 * per endpoint.
 *
 * <pre>{@code
 * RlmRuntime runtime = SharedRuntimes.of(config, SandboxMode.WORKERS, checkpoints, keys);
 * try (RlmRuntime.Rollout r = runtime.open(PolicyKind.DJL, runId, version, SparkTaskDevice.current())) {
 *   TreeRunner.TreeResult tree = r.runner().run(treeId, question, context, seed);
 * }
 * }</pre>
 *
 * <p>Thread-safe. The {@code repl} job owns a runtime of its own ({@link #create}) and closes it.
 */
public final class RlmRuntime implements AutoCloseable {

  private final ArborConfig config;
  private final SandboxMode mode;
  private final PolicyVersions versions;
  private final Prompts prompts;
  private final RlmLimits limits;
  private final FixedPolicies fixed;
  private final Set<ModelHolder> holders = new LinkedHashSet<>();
  private Sandbox sandbox;
  private boolean closed;

  RlmRuntime(ArborConfig config, SandboxMode mode, CheckpointSource checkpoints, ApiKeys keys) {
    this.config = config;
    this.mode = mode;
    this.versions = new PolicyVersions(config.policy().djl().modelDir(), checkpoints, config.policy().djl().cache());
    this.fixed = new FixedPolicies(config, keys);
    this.prompts = Prompts.of(config.rlm());
    this.limits = RlmLimits.of(config.rlm(), config.repl());
  }

  /** A runtime the caller owns and closes (a job that runs trees in its own JVM). */
  public static RlmRuntime create(ArborConfig config, SandboxMode mode, ApiKeys keys) {
    return new RlmRuntime(config, mode, null, keys);
  }

  /**
   * A tree runner over this runtime's sandbox and the policy {@code kind} (for {@code djl}, the
   * checkpoint {@code version} of run {@code runId} on {@code device}). Close the rollout when
   * its trees are done: that releases its lease on the model.
   */
  public Rollout open(PolicyKind kind, String runId, long version, Device device) {
    return open(kind, runId, version, device, TreeRunner.TreeListener.NONE);
  }

  /** As {@link #open(PolicyKind, String, long, Device)}, with a listener that hears the trees unfold. */
  public Rollout open(PolicyKind kind, String runId, long version, Device device, TreeRunner.TreeListener listener) {
    Sandbox box = sandbox();
    if (kind != PolicyKind.DJL) {
      return new Rollout(kind, version, new TreeRunner(box, fixed.get(kind), prompts, limits, listener), null);
    }
    ModelHolder.Lease lease = holder(device).acquire(versions.keyOf(runId, version));
    try {
      DjlPolicySettings djl = config.policy().djl();
      DjlPolicy policy = new DjlPolicy(new ChatGenerator(lease.policy(), lease.engine()), djl.sampling(), djl.seed());
      return new Rollout(kind, version, new TreeRunner(box, policy, prompts, limits, listener), lease);
    } catch (RuntimeException e) {
      lease.close();
      throw e;
    }
  }

  /** Trees of one policy at one version, until closed. */
  public static final class Rollout implements AutoCloseable {
    private final PolicyKind kind;
    private final long version;
    private final TreeRunner runner;
    private final ModelHolder.Lease lease;

    private Rollout(PolicyKind kind, long version, TreeRunner runner, ModelHolder.Lease lease) {
      this.kind = kind;
      this.version = version;
      this.runner = runner;
      this.lease = lease;
    }

    public TreeRunner runner() {
      return runner;
    }

    public PolicyKind kind() {
      return kind;
    }

    public long version() {
      return version;
    }

    /** The generation engine's work so far (djl only): prefill and decode tokens and times. */
    public Optional<GenerationEngine.Stats> engineStats() {
      return lease == null ? Optional.empty() : Optional.of(lease.engine().stats());
    }

    @Override
    public void close() {
      if (lease != null) {
        lease.close();
      }
    }
  }

  private synchronized Sandbox sandbox() {
    if (closed) {
      throw new IllegalStateException("the RLM runtime is closed");
    }
    if (sandbox == null) {
      sandbox = switch (mode) {
        case WORKERS -> new WorkerPool(WorkerPoolConfig.of(config.sandbox()), SandboxLimits.of(config.repl()));
        case IN_PROCESS -> new InProcessSandbox(SandboxLimits.of(config.repl()));
      };
    }
    return sandbox;
  }

  private synchronized ModelHolder holder(Device device) {
    if (closed) {
      throw new IllegalStateException("the RLM runtime is closed");
    }
    DjlPolicySettings djl = config.policy().djl();
    if (holders.isEmpty()) {
      TorchThreads.configure(djl.torchThreads());
    }
    ModelHolder h = ModelHolder.shared(device, versions, GenerationEngine.Options.of(djl.engine()));
    holders.add(h);
    return h;
  }

  /** Closes the policies, the model holders it used and the sandbox (killing its workers). */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    fixed.close();
    holders.forEach(ModelHolder::close);
    if (sandbox != null) {
      sandbox.close();
    }
    SharedRuntimes.forget(this);
  }
}
