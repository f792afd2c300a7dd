package arbor.policy.generate;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * One request inside the engine: its tokens (prompt, then what it generated), the KV blocks
 * that hold the first {@code cached} of them, and where its chain of prefix-cache keys stands.
 * Touched by the engine thread only.
 */
final class Sequence {

  final int promptLength;
  final SamplingParams params;
  final CompletableFuture<Generation> result = new CompletableFuture<>();
  final SplittableRandom rng;
  /** Prompt followed by the generated tokens. */
  final int[] tokens;
  final float[] logProbs;
  int generated;
  /** Leading tokens whose keys and values are in {@link #blocks}. */
  int cached;
  final int[] blocks;
  int blockCount;
  /** Full blocks already keyed in the prefix cache (or found there). */
  int keyedBlocks;
  /** Serial of the last keyed block (the root of its model version at first). */
  long chain;
  /** Admission order: the latest admitted is preempted first. */
  long admitted;
  boolean counted;

  Sequence(int[] prompt, SamplingParams params, int blockSize) {
    this.promptLength = prompt.length;
    this.params = params;
    this.rng = new SplittableRandom(params.seed());
    this.tokens = Arrays.copyOf(prompt, prompt.length + params.maxNewTokens());
    this.logProbs = new float[params.maxNewTokens()];
    this.blocks = new int[blocksFor(tokens.length, blockSize)];
  }

  static int blocksFor(int positions, int blockSize) {
    return (positions + blockSize - 1) / blockSize;
  }

  int length() {
    return promptLength + generated;
  }

  /**
   * How far prefill must go: the prompt, or for a resumed sequence everything but its last
   * token, which the next decode step feeds.
   */
  int prefillTarget() {
    return generated == 0 ? promptLength : length() - 1;
  }

  int lastToken() {
    return tokens[length() - 1];
  }

  /** Tokens of full block {@code j}. */
  int[] blockTokens(int j, int blockSize) {
    return Arrays.copyOfRange(tokens, j * blockSize, (j + 1) * blockSize);
  }

  /** Forgets its cache (preemption): it will prefill its tokens again, from the prefix cache. */
  void reset(long root) {
    cached = 0;
    blockCount = 0;
    keyedBlocks = 0;
    chain = root;
  }
}
