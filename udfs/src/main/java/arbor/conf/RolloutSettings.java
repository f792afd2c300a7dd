package arbor.conf;

import java.io.Serializable;

/**
 * The {@code Rollouts} stage: which policy writes the trees of a step, how many samples each
 * query gets, how the trees are spread over Spark tasks, and when a step counts as failed.
 *
 * @param policy {@code djl}, {@code scripted}, {@code replay}, {@code openai} or {@code anthropic}
 * @param samples G: trees per query (the GRPO group)
 * @param treesPerTask trees one Spark task runs, all at once, so that their decode steps batch
 *     together in the executor's generation engine
 * @param maxInfraFailureFraction the step fails when more than this fraction of its trees end in
 *     an infrastructure failure (a lost sandbox, an endpoint that never answered, a tree the
 *     harness could not run); below it those trees are rows with their status
 * @param sandbox {@code workers} (isolated processes, for any policy) or {@code in_process}
 *     (trusted code only: the scripted expert, replays)
 */
public record RolloutSettings(arbor.conf.PolicyKind policy, int samples, int treesPerTask, double maxInfraFailureFraction,
    SandboxMode sandbox) implements Serializable {

  public enum SandboxMode { WORKERS, IN_PROCESS }
}
