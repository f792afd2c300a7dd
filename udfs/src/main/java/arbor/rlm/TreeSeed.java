package arbor.rlm;

import arbor.rlm.policy.NodePath;
import java.nio.charset.StandardCharsets;

/**
 * The sampling seeds of a rollout tree. A tree's seed is a function of (run, step, query, sample)
 * and each turn's seed a function of the tree's seed, the node's path and the turn, so a rerun
 * of a step draws exactly the same seeds whatever order its threads happen to run in, and the
 * {@code G} samples of one query draw different ones.
 */
public final class TreeSeed {
  private TreeSeed() {}

  /** The seed of sample {@code sample} of query {@code queryId} in step {@code step} of run {@code runId}. */
  public static long of(String runId, long step, String queryId, int sample) {
    long h = mix(hash(runId) ^ 0x5DEECE66DL);
    h = mix(h ^ step);
    h = mix(h ^ hash(queryId));
    return mix(h ^ sample);
  }

  /** The seed of a tree run outside a training step (the repl job, benchmarks): from its id and a base seed. */
  public static long ofTree(String treeId, long base) {
    return mix(mix(base) ^ hash(treeId));
  }

  /** The seed of turn {@code turn} of the node at {@code path}. */
  public static long turn(long treeSeed, NodePath path, int turn) {
    return mix(node(treeSeed, path) ^ (turn + 1L));
  }

  /** The seed of the node's {@code index}-th {@code llm_query} prompt (never a training sample). */
  public static long llmQuery(long treeSeed, NodePath path, int index) {
    return mix(node(treeSeed, path) ^ ~(long) index);
  }

  private static long node(long treeSeed, NodePath path) {
    long h = mix(treeSeed ^ 0x2545F4914F6CDD1DL);
    for (int i : path.indexes()) {
      h = mix(h ^ (i + 1L));
    }
    return h;
  }

  /** FNV-1a over the UTF-8 bytes: 64 bits, and the same in every JVM. */
  private static long hash(String s) {
    long h = 0xcbf29ce484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }

  /** SplitMix64's finaliser: nearby inputs give unrelated outputs. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
