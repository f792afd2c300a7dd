package arbor.judge;

import java.util.concurrent.Semaphore;

/**
 * The per-JVM bound on endpoint judge calls in flight ({@code judge.concurrency}): every task of
 * an executor shares it, so more cores or more tasks do not mean more load on the endpoint.
 */
final class JudgeSlots {
  private JudgeSlots() {}

  private static Semaphore slots;
  private static int permits;

  static synchronized Semaphore shared(int wanted) {
    if (slots == null || permits != wanted) {
      // A new bound (another job in the same JVM) applies to calls from now on.
      slots = new Semaphore(Math.max(1, wanted));
      permits = wanted;
    }
    return slots;
  }
}
