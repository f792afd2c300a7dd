package arbor.tables;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** A rollout_turns row written and read through its record: token arrays as Spark holds them, or null. */
class RolloutTurnTest {
  @Test
  void aStudentTurnKeepsItsTokensAndLogProbabilities() {
    RolloutTurn turn = new RolloutTurn("run", 1L, "q1#0:root", 0, "[{\"role\":\"user\",\"content\":\"Q?\"}]",
        List.of(5, 6, 7), List.of(8, 9), List.of(-0.5f, -1.25f), "```repl\nprint(1)\n```", List.of("print(1)"), "1",
        false, "stop", false, 1.0, 0.95, 50, 1234L, 2L, 30L, 4L);
    Row row = NamedRows.named(turn.toRow(), RolloutTurn.SCHEMA);
    assertEquals(RolloutTurn.SCHEMA.size(), row.size());
    assertEquals(List.of(8, 9), row.getList(row.fieldIndex(Cols.RESPONSE_IDS)));
    assertEquals(1234L, row.<Long>getAs(RolloutTurn.SEED));
    assertEquals(turn, RolloutTurn.of(row));
  }

  @Test
  void aTeacherTurnHasNoTokensButItsConversation() {
    RolloutTurn turn = new RolloutTurn("teacher", 0L, "q2#0:root", 1, "[]", null, null, null, "FINAL([])", List.of(),
        null, false, "text", false, 0.7, 1.0, 0, 99L, 0L, 0L, 12L);
    Row row = NamedRows.named(turn.toRow(), RolloutTurn.SCHEMA);
    assertTrue(row.isNullAt(row.fieldIndex(Cols.PROMPT_IDS)));
    assertTrue(row.isNullAt(row.fieldIndex(Cols.LOGPROBS)));
    assertEquals(turn, RolloutTurn.of(row));
  }
}
