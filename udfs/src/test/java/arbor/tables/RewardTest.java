package arbor.tables;

import static org.junit.jupiter.api.Assertions.*;

import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** A rewards row written and read through its record, in the table's column order. */
class RewardTest {
  @Test
  void aJudgedRootReadsBackAsItWasWritten() {
    Reward r = new Reward("run", 2L, "q1/0", "q1", 0, 0.7, 8.0, 6.0, "close", "rubric", 0.5, 0.4, 0.44, Reward.OK, null);
    Row row = r.toRow();
    assertEquals(Reward.SCHEMA.size(), row.size());
    assertEquals(r, Reward.of(NamedRows.named(row, Reward.SCHEMA)));
    assertEquals(0.7, NamedRows.named(row, Reward.SCHEMA).<Double>getAs(Reward.REWARD));
  }

  @Test
  void aFailedRootHasNoRewardAndSaysWhy() {
    Reward r = Reward.failed("run", 0L, "q2/1", "q2", 1, "rubric", Reward.INFRA_FAILURE, "worker lost");
    Row row = NamedRows.named(r.toRow(), Reward.SCHEMA);
    assertTrue(row.isNullAt(row.fieldIndex(Reward.REWARD)));
    assertTrue(row.isNullAt(row.fieldIndex(Reward.SPAN_F1)));
    assertEquals(Reward.INFRA_FAILURE, row.getAs(Reward.STATUS));
    assertEquals("worker lost", row.getAs(Reward.ERROR));
    assertEquals(r, Reward.of(row));
  }
}
