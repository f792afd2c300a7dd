package arbor.judge;

import arbor.text.Interval;
import static org.junit.jupiter.api.Assertions.assertEquals;

import arbor.judge.AlignedCase.Located;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpanMetricsTest {

  @Test
  void intervalsMergeWhenTheyOverlapOrTouch() {
    List<Interval> merged = Interval.merge(List.of(new Interval(10, 12), new Interval(0, 5), new Interval(3, 8),
        new Interval(12, 14), new Interval(20, 20)));
    assertEquals(List.of(new Interval(0, 8), new Interval(10, 14)), merged);
    // [0,8) and [10,14) against [6,11): 2 + 1 characters shared.
    assertEquals(3, Interval.overlap(merged, List.of(new Interval(6, 11))));
  }

  @Test
  void scoresAreMicroAveragedOverPapers() {
    AlignedCase c = new AlignedCase(
        List.of(new Located("t1", "A", new Interval(5, 15)), new Located("t2", "B", new Interval(0, 10))),
        List.of(new Located("p1", "A", new Interval(0, 10)), new Located("p2", "B", new Interval(0, 30))));
    SpanMetrics m = SpanMetrics.of(c);
    // A: 5 of 10 predicted overlap; B: 10 of 30. Micro: P = 15 / 40 = 0.375, R = 15 / 20 = 0.75,
    // F1 = 2 * 0.375 * 0.75 / 1.125 = 0.5 (the macro mean of P would be (0.5 + 0.333) / 2 = 0.417).
    assertEquals(0.375, m.precision(), 1e-12);
    assertEquals(0.75, m.recall(), 1e-12);
    assertEquals(0.5, m.f1(), 1e-12);
  }

  @Test
  void overlappingPredictionsCountOnceAndAMadeUpSpanCostsPrecision() {
    AlignedCase c = new AlignedCase(
        List.of(new Located("t", "A", new Interval(0, 20))),
        List.of(new Located("p", "A", new Interval(0, 10)), new Located("p again", "A", new Interval(5, 10)),
            new Located("ten chars!", null, null)));
    SpanMetrics m = SpanMetrics.of(c);
    // predicted: [0,10) merged = 10, plus 10 unlocated characters; overlap 10.
    // P = 10 / 20 = 0.5, R = 10 / 20 = 0.5, F1 = 0.5
    assertEquals(0.5, m.precision(), 1e-12);
    assertEquals(0.5, m.recall(), 1e-12);
    assertEquals(20, m.predictedChars());
  }

  @Test
  void nothingPredictedScoresZeroAndEvidenceNotLocatedCostsRecall() {
    SpanMetrics none = SpanMetrics.of(new AlignedCase(List.of(new Located("t", "A", new Interval(0, 20))), List.of()));
    assertEquals(0, none.f1());
    AlignedCase c = new AlignedCase(
        List.of(new Located("t", "A", new Interval(0, 10)), new Located("0123456789", null, null)),
        List.of(new Located("p", "A", new Interval(0, 10))));
    // R = 10 / (10 + 10) = 0.5; P = 1
    assertEquals(0.5, SpanMetrics.of(c).recall(), 1e-12);
    assertEquals(1, SpanMetrics.of(c).precision(), 1e-12);
  }
}
