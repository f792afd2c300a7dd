package arbor.rlm;

import arbor.conf.PromptStrategy;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The prompt files of method.md section 4: their sizes, and what every one of them must say. */
class PromptsTest {
  static final Path DIR = Path.of(System.getProperty("arbor.repo", ".."), "conf", "prompts");

  /** About four characters per token for English prose with code. */
  static int tokens(String text) {
    return text.length() / 4;
  }

  @Test
  void fullPromptsAreAboutFifteenHundredTokensAndReducedAboutTwoHundred() {
    Prompts full = Prompts.load(DIR, PromptStrategy.FULL);
    Prompts reduced = Prompts.load(DIR, PromptStrategy.REDUCED);
    for (Prompts.Role role : Prompts.Role.values()) {
      int f = tokens(full.system(role));
      int r = tokens(reduced.system(role));
      assertTrue(f >= 1_200 && f <= 1_800, role + " full prompt is about " + f + " tokens");
      assertTrue(r >= 100 && r <= 300, role + " reduced prompt is about " + r + " tokens");
    }
  }

  @Test
  void everySystemPromptNamesTheFenceAndTheWayToSubmit() {
    for (PromptStrategy strategy : PromptStrategy.values()) {
      Prompts p = Prompts.load(DIR, strategy);
      for (Prompts.Role role : Prompts.Role.values()) {
        String text = p.system(role);
        assertTrue(text.contains("```repl"), role + " " + strategy);
        assertTrue(text.contains("FINAL_VAR"), role + " " + strategy);
        assertTrue(text.contains("verbatim"), role + " " + strategy);
      }
    }
  }

  @Test
  void theInstructionQuotesTheRootPromptAndTheFirstTurnSaysToLookFirst() {
    Prompts p = Prompts.load(DIR, PromptStrategy.FULL);
    assertTrue(p.instruction(0, "Q?").contains("Q?") && p.instruction(0, "Q?").contains("do not answer yet"));
    assertTrue(p.instruction(3, "Q?").contains("Q?") && !p.instruction(3, "Q?").contains("do not answer yet"));
    assertTrue(p.finalInstruction("Q?").contains("Q?"));
  }

  @Test
  void theRootPromptCarriesTheDelegationStrategy() {
    String root = Prompts.load(DIR, PromptStrategy.FULL).system(Prompts.Role.ROOT_MULTI);
    for (String must : new String[] {"rlm_query_batched", "at most four", "list_papers", "singleton", "wide-net",
        "do not re-filter"}) {
      assertTrue(root.toLowerCase().contains(must.toLowerCase()), "root prompt lacks: " + must);
    }
  }
}
