package arbor.policy.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TorchThreadsTest {

  @Test
  void theAutomaticChoiceLeavesBusyCoresAlone() {
    assertEquals(2, TorchThreads.choose(2, 0.1));   // idle machine: every core
    assertEquals(1, TorchThreads.choose(2, 0.9));   // one core busy elsewhere
    assertEquals(1, TorchThreads.choose(2, 5.5));   // oversubscribed: one thread, never zero
    assertEquals(12, TorchThreads.choose(16, 3.8));
    assertEquals(16, TorchThreads.choose(16, -1));  // no load figure on this OS
  }

  static String stat(long user, long idle) {
    // cpu user nice system idle iowait irq softirq steal guest guest_nice, then two cores.
    return "cpu  " + user + " 0 0 " + idle + " 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0 0 0\nintr 1\n";
  }

  static String self(long utime, long stime) {
    return "4242 (java x) S 1 1 1 0 -1 0 0 0 0 0 " + utime + " " + stime + " 0 0 20 0 30 0 1 0 0";
  }

  @Test
  void coresBusyElsewhereAreTheMachinesBusyTicksLessThisProcesssOwn() {
    // 200 ticks over 2 cores: 150 busy, 50 of them this JVM's: one core busy elsewhere.
    assertEquals(1.0, TorchThreads.busyElsewhere(stat(1000, 1000), stat(1150, 1050), self(10, 5), self(50, 15)), 1e-12);
    // An idle machine whose 1-minute load average still counts a build that just ended: nothing
    // is busy now, so the engine gets both cores (the load average, 1.8, gave it one).
    double now = TorchThreads.busyElsewhere(stat(5000, 100), stat(5002, 298), self(7, 1), self(9, 1));
    assertEquals(0.0, now, 1e-12);
    assertEquals(2, TorchThreads.choose(2, now));
    assertEquals(1, TorchThreads.choose(2, 1.8));
  }

  @Test
  void theLiveMeasurementIsBetweenNoCoreAndEveryCore() throws Exception {
    double busy = TorchThreads.busyElsewhere(java.time.Duration.ofMillis(100));
    long cpus = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/stat")).stream()
        .filter(l -> l.startsWith("cpu") && !l.startsWith("cpu ")).count();
    assertTrue(busy >= 0 && busy <= cpus, "busy elsewhere: " + busy);
  }
}
