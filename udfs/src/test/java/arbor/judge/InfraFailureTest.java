package arbor.judge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class InfraFailureTest {

  @Test
  void aLostSandboxAnywhereInTheTreeIsAnInfrastructureFailure() {
    assertEquals("the root ended sandbox_lost: worker died",
        InfraFailure.of("djl", "sandbox_lost", "worker died", List.of("sandbox_lost", "final")));
    assertEquals("2 node(s) of the tree ended in an infrastructure failure {sandbox_lost=2}",
        InfraFailure.of("scripted", "final", null, List.of("final", "sandbox_lost", "max_turns", "sandbox_lost")));
    assertEquals("the root ended infra_error: the runner failed", InfraFailure.of("djl", "infra_error", "the runner failed", List.of("infra_error")));
  }

  @Test
  void anEndpointThatNeverAnsweredIsOneButTheEmbeddedModelFailingIsNot() {
    assertEquals("the openai endpoint never answered the root: timeout after 4 attempts",
        InfraFailure.of("openai", "policy_error", "timeout after 4 attempts", List.of("policy_error")));
    assertEquals("1 node(s) of the tree ended in an infrastructure failure {policy_error=1}",
        InfraFailure.of("anthropic", "final", null, List.of("final", "policy_error")));
    assertNull(InfraFailure.of("djl", "policy_error", "prompt longer than the model", List.of("policy_error")));
  }

  @Test
  void ordinaryEndingsAreNotInfrastructureFailures() {
    for (String status : new String[] {"final", "max_turns", "sandbox_error", "cancelled", "budget"}) {
      assertNull(InfraFailure.of("openai", status, null, List.of(status, "final")), status);
    }
  }
}
