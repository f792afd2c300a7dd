package arbor.tables;

import static org.junit.jupiter.api.Assertions.*;

import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** A rollout_nodes row written and read through its record, in the table's column order. */
class RolloutNodeTest {
  @Test
  void aChildReadsBackAsItWasWritten() {
    RolloutNode child = new RolloutNode("run", 3L, "q1#0:root.1", "q1", 0, "q1#0:root", "q1#0:root", 1, 1, 0,
        "Which optimiser?", "[\"AdamW\"]", "final", null, 2, 57L, 840L, "djl", 2L);
    Row row = NamedRows.named(child.toRow(), RolloutNode.SCHEMA);
    assertEquals(RolloutNode.SCHEMA.size(), row.size());
    assertEquals("q1#0:root", row.getAs(RolloutNode.PARENT_ID));
    assertEquals(57L, row.<Long>getAs(RolloutNode.GEN_TOKENS));
    assertEquals(2L, row.<Long>getAs(Cols.POLICY_VERSION));
    assertEquals(child, RolloutNode.of(row));
  }

  @Test
  void aRootWithoutAnAnswerKeepsItsNullsAndItsReason() {
    RolloutNode root = new RolloutNode("run", 0L, "q2#1:root", "q2", 1, null, "q2#1:root", 0, -1, 3, "Q?", null,
        "max_turns", "used its 4 turns without a final answer", 4, 300L, 5_000L, "scripted", 0L);
    Row row = NamedRows.named(root.toRow(), RolloutNode.SCHEMA);
    assertTrue(row.isNullAt(row.fieldIndex(RolloutNode.PARENT_ID)));
    assertTrue(row.isNullAt(row.fieldIndex(RolloutNode.FINAL_ANSWER)));
    assertEquals(-1, row.<Integer>getAs(RolloutNode.CHILD_INDEX));
    assertEquals(root, RolloutNode.of(row));
  }
}
