package arbor.judge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class InfraFailureTest {

  @Test
  void aLostSandboxAnywhereInTheTreeIsAnInfrastructureFailure() {
    assertEquals("the root's sandbox was lost: worker died", InfraFailure.of("sandbox_lost", "djl", "worker died", 1));
    assertEquals("2 node(s) of the tree lost their sandbox", InfraFailure.of("final", "djl", null, 2));
  }

  @Test
  void onlyAnEndpointThatNeverAnsweredTheRootIsOne() {
    assertEquals("the openai endpoint never answered the root: timeout after 4 attempts",
        InfraFailure.of("policy_error", "openai", "timeout after 4 attempts", 0));
    assertEquals("the anthropic endpoint never answered the root", InfraFailure.of("policy_error", "anthropic", null, 0));
    // The embedded model failing is the policy's own outcome.
    assertNull(InfraFailure.of("policy_error", "djl", "generation failed", 0));
  }

  @Test
  void ordinaryEndingsAreNotInfrastructureFailures() {
    for (String status : new String[] {"final", "max_turns", "sandbox_error", "cancelled", "budget"}) {
      assertNull(InfraFailure.of(status, "openai", null, 0), status);
    }
  }
}
