package arbor.policy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
