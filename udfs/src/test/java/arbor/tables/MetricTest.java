package arbor.tables;

import static org.junit.jupiter.api.Assertions.*;

import java.sql.Timestamp;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** A metrics row written and read through its record, in the table's column order. */
class MetricTest {
  @Test
  void aRowReadsBackAsTheRecordItWasWrittenFrom() {
    Metric m = new Metric("run-a", 3L, "judge.reward_mean", 0.25, new Timestamp(1_000L));
    Row row = m.toRow();
    assertEquals(Metric.SCHEMA.size(), row.size());
    assertEquals(m, Metric.of(NamedRows.named(row, Metric.SCHEMA)));
  }

  @Test
  void figuresBecomeOneRowEachUnderTheirStepWithOneTimestamp() {
    Map<String, Double> figures = new LinkedHashMap<>();
    figures.put("learner.kl", 0.01);
    figures.put("learner.loss", -0.5);
    List<Row> rows = Metric.rows("run-b", 7L, figures);
    assertEquals(2, rows.size());
    assertEquals(List.of("run-b", 7L, "learner.kl", 0.01), List.of(rows.get(0).get(0), rows.get(0).get(1),
        rows.get(0).get(2), rows.get(0).get(3)));
    assertEquals("learner.loss", rows.get(1).get(2));
    assertEquals(rows.get(0).get(4), rows.get(1).get(4));
  }
}
