package arbor.rlm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ResponseParserTest {
  @Test
  void replAndPythonBlocksAreFoundInOrderAndOtherFencesIgnored() {
    String r = "Plan.\n```repl\nx = 1\n```\ntext\n```json\n{}\n```\n```python\nprint(x)\n```";
    assertEquals(List.of("x = 1", "print(x)"), ResponseParser.codeBlocks(r));
  }

  @Test
  void finalTextOutsideFencesIsFoundAndTheLastOneWins() {
    String r = "FINAL(['first'])\n```repl\nFINAL_VAR('inside')\n```\nDone.\nFINAL_VAR(evidence)";
    ResponseParser.FinalText ft = ResponseParser.finalText(r).orElseThrow();
    assertTrue(ft.isVar());
    assertEquals("FINAL_VAR('evidence')", ft.asCode());
  }

  @Test
  void finalTextInsideACodeBlockIsNotText() {
    assertFalse(ResponseParser.finalText("```repl\nFINAL(x)\n```").isPresent());
  }

  @Test
  void finalTextSpansLinesAndSkipsParenthesesInStrings() {
    String r = "FINAL([\"a (b\",\n  'c)']) trailing";
    assertEquals("FINAL([\"a (b\",\n  'c)'])", ResponseParser.finalText(r).orElseThrow().asCode());
  }

  @Test
  void aFinalMentionedMidSentenceIsNotAnAnswer() {
    assertFalse(ResponseParser.finalText("I will call FINAL(x) later.").isPresent());
  }
}
