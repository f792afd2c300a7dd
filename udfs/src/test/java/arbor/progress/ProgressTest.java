package arbor.progress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void lineHasCountPercentRateEtaAndElapsed() {
    assertEquals("rollouts: 12/32 trees (38%), 0.86 trees/s, ETA 23 s, 14 s elapsed",
        new ProgressLine("rollouts", "trees", 12, 32, 14).format());
  }

  @Test
  void nothingDoneYetHasNoRateAndAnUnknownEta() {
    assertEquals("judge: 0/8 trees (0%), ETA unknown, 10 s elapsed", new ProgressLine("judge", "trees", 0, 8, 10).format());
  }

  @Test
  void doneHasNoEtaAndAnUnknownTotalNoPercent() {
    assertEquals("learner: 4000/4000 tokens (100%), 400 tokens/s, 10 s elapsed",
        new ProgressLine("learner", "tokens", 4000, 4000, 10).format());
    assertEquals("eval: 5 trees, 0.50 trees/s, 10 s elapsed", new ProgressLine("eval", "trees", 5, 0, 10).format());
  }

  @Test
  void longDurationsReadAsMinutesAndHours() {
    assertEquals("119 s", ProgressLine.duration(119));
    assertEquals("2 min 5 s", ProgressLine.duration(125));
    assertEquals("1 h 2 min", ProgressLine.duration(3720));
  }

  @Test
  void linesComeAtMostEveryIntervalPlusTheLastOne() {
    AtomicLong now = new AtomicLong(100 * SECOND);
    AtomicLong done = new AtomicLong();
    List<String> lines = new ArrayList<>();
    Progress p = new Progress("rollouts", "trees", done::get, () -> 10, 10, now::get, lines::add);
    for (int s = 1; s <= 25; s++) {  // polled every second for 25 s: lines at 10 s and 20 s
      now.addAndGet(SECOND);
      done.set(s / 5);
      p.poll();
    }
    p.close();
    p.close();  // once only
    p.poll();   // nothing after the end
    assertEquals(List.of(
        "rollouts: 2/10 trees (20%), 0.20 trees/s, ETA 40 s, 10 s elapsed",
        "rollouts: 4/10 trees (40%), 0.20 trees/s, ETA 30 s, 20 s elapsed",
        "rollouts: 5/10 trees (50%), 0.20 trees/s, ETA 25 s, 25 s elapsed"), lines);
    lines.forEach(l -> assertFalse(l.contains("\r") || l.contains("\u001b"), l));
  }

  @Test
  void theRateStaysThatOfTheWorkOnceAllIsDoneAndTheEndLineIsNotRepeated() {
    AtomicLong now = new AtomicLong(0);
    AtomicLong done = new AtomicLong();
    List<String> lines = new ArrayList<>();
    Progress p = new Progress("rollouts", "trees", done::get, () -> 4, 5, now::get, lines::add);
    now.set(2 * SECOND);
    done.set(4);  // every tree by 2 s (seen by a poll that prints nothing), then the phase writes them until 12 s
    p.poll();
    now.set(5 * SECOND);
    p.poll();
    now.set(12 * SECOND);
    p.poll();   // 7 s after the last line: one more
    p.close();  // in the same second: no second identical line
    assertEquals(List.of(
        "rollouts: 4/4 trees (100%), 2.0 trees/s, 5 s elapsed",
        "rollouts: 4/4 trees (100%), 2.0 trees/s, 12 s elapsed"), lines);
  }

  @Test
  void tallyCarriesADriverLoopsCount() {
    Tally t = new Tally();
    t.total(100);
    t.add(30);
    t.add(12);
    assertEquals(new ProgressLine("sft epoch 1/2", "tokens", 42, 100, 2).format(),
        new Progress("sft epoch 1/2", "tokens", t::done, t::total, 10, () -> 2 * SECOND, l -> {}).line(4 * SECOND).format());
  }
}
