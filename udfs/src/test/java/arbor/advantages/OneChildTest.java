package arbor.advantages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OneChildTest {
  @Test
  void theOneChildDrawIsReproducibleInRangeAndUsesEveryChild() {
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      int pick = OneChild.pick(11, "node-" + i, 4);
      assertTrue(pick >= 0 && pick < 4);
      assertEquals(pick, OneChild.pick(11, "node-" + i, 4));
      seen.add(pick);
    }
    assertEquals(Set.of(0, 1, 2, 3), seen);
    assertEquals(0, OneChild.pick(5, "x", 1));
    assertThrows(IllegalArgumentException.class, () -> OneChild.pick(5, "x", 0));
  }
}
