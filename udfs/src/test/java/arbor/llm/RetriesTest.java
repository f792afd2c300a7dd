package arbor.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The retry loop the rubric judge and the llm generator share (each is also tested against a real HTTP server). */
class RetriesTest {

  @Test
  void anInvalidReplyIsAskedAgainAndTheFirstUsableOneIsTaken() {
    AtomicInteger calls = new AtomicInteger();
    Retries.Outcome<String> out = new Retries(3, 1, 5, "x.timeout").run(() -> {
      if (calls.incrementAndGet() < 3) throw new InvalidReply("not yet");
      return "ok";
    });
    assertEquals(new Retries.Outcome.Replied<>("ok"), out);
    assertEquals(3, calls.get());
  }

  @Test
  void failuresWaitADoublingBackoffAndEndAsTheLastReasonNotAnException() {
    AtomicInteger calls = new AtomicInteger();
    long t0 = System.nanoTime();
    Retries.Outcome<String> out = new Retries(3, 40, 5, "x.timeout").run(() -> {
      calls.incrementAndGet();
      throw new IllegalStateException("refused");
    });
    long ms = (System.nanoTime() - t0) / 1_000_000;
    var failed = assertInstanceOf(Retries.Outcome.Failed.class, out);
    assertEquals("after 3 attempt(s): request failed: IllegalStateException: refused", failed.reason());
    assertEquals(3, calls.get());
    assertTrue(ms >= 120, "waits 40 ms, then 80 ms: " + ms + " ms");
  }

  @Test
  void aRequestThatRanToItsTimeoutIsNamedATimeoutWithItsSetting() {
    Retries.Outcome<String> out = new Retries(1, 0, 0.1, "x.timeout_seconds").run(() -> {
      try {
        Thread.sleep(120);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
      throw new IllegalStateException("read timed out");
    });
    assertEquals(new Retries.Outcome.Failed<>("after 1 attempt(s): timeout: no reply within 0.1 s (x.timeout_seconds)", false), out);
  }

  @Test
  void anInterruptWhileWaitingToRetryStopsAtOnceAndSaysSo() throws Exception {
    Retries.Outcome<?>[] out = new Retries.Outcome<?>[1];
    Thread t = Thread.ofPlatform().start(() -> out[0] = new Retries(5, 60_000, 5, "x.timeout").run(() -> {
      throw new InvalidReply("garbled");
    }));
    Thread.sleep(200);
    long t0 = System.nanoTime();
    t.interrupt();
    t.join(5_000);
    assertTrue((System.nanoTime() - t0) / 1e9 < 5, "the loop kept waiting after the interrupt");
    assertEquals(new Retries.Outcome.Failed<>("interrupted after 1 attempt(s): invalid reply: garbled", true), out[0]);
  }
}
