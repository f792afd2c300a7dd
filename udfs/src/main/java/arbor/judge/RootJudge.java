package arbor.judge;

/**
 * Scores a root's submitted spans against the ground truth. Implementations never throw for a
 * bad reply or an unreachable server: they return a failed {@link Verdict} that says what happened.
 */
public sealed interface RootJudge extends AutoCloseable permits EmbeddedJudge, RubricJudge {

  /** The name stored in {@code rewards.judge}. */
  String name();

  /** Whether calls go over the network (and are bounded by {@code judge.concurrency}). */
  boolean remote();

  Verdict judge(JudgeCase c, AlignedCase aligned);

  @Override
  default void close() {}
}
