package arbor.conf;

import java.io.Serializable;
import java.time.Duration;

/**
 * The caps of a rollout tree (method.md section 2) and its prompts.
 *
 * @param prompts the strategy prompts: {@code full} (about 1,500 tokens) or {@code reduced}
 * @param promptDir the prompt files; when the folder does not exist, the copies inside the jar
 * @param maxLlmCalls {@code llm_query} prompts one node may send in all
 * @param bindQuestion bind each node's prompt as the reserved REPL name {@code question} (off in
 *     the published method)
 */
public record RlmSettings(
    int maxTurns,
    OnMaxTurns onMaxTurns,
    int maxDepth,
    int maxChildren,
    int maxNodes,
    long maxTokensPerTree,
    Duration treeWallTime,
    PromptStrategy prompts,
    String promptDir,
    int maxLlmCalls,
    boolean bindQuestion) implements Serializable {}
