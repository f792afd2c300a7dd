package arbor.synthesis;

import static org.junit.jupiter.api.Assertions.*;

import arbor.conf.OfflineSettings;
import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

class GenerateQueriesTest {
  private static final GroupContext GROUP = Groups.group(
      Groups.withQuestions(Groups.sectioned("a", "Kernels for Molecules",
              "# Datasets", "We compare each graph kernel on molecule benchmarks. The graph kernel is fast.",
              "# Baselines", "Our MPNN baseline is strong. We tune the MPNN for a week."),
          new GroupContext.SourceQuestion("q-good", "Which baseline is tuned?", List.of(List.of("Our MPNN baseline is strong. We tune the MPNN for a week."))),
          new GroupContext.SourceQuestion("q-bad", "What is fast?", List.of(List.of("The kernel is very fast indeed.")))),
      Groups.sectioned("b", "Learning on Graphs", "# Data", "A graph kernel measures the similarity of two graphs."),
      Groups.paper("c", "Speech", "Acoustic models are trained with gradient descent."));

  /** The rows GenerateQueries makes carry no schema (the encoder adds it): read fields by GENERATED's positions. */
  private static Object get(Row r, String field) {
    return r.get(SynthesisRows.GENERATED.fieldIndex(field));
  }

  private static List<Row> rows(String kind, List<Row> all) {
    return all.stream().filter(r -> kind.equals(get(r, "kind"))).toList();
  }

  @Test
  void generatorsTakeTurnsAndWhatFailsTheChecksIsDroppedWithItsReason() {
    List<QueryGenerator> generators = List.of(new HumanGenerator(), new OfflineGenerator(new OfflineSettings(2, 8), 7));
    List<Row> out = GenerateQueries.generate(GROUP, generators, 2);
    List<Row> queries = rows(SynthesisRows.QUERY, out);
    assertEquals(2, queries.size());
    assertEquals("human", get(queries.get(0), "generator"));
    assertEquals("q-good", get(queries.get(0), "source_id"));
    assertEquals("offline", get(queries.get(1), "generator"), "the second query comes from the second generator");
    List<Row> dropped = rows(SynthesisRows.DROPPED, out).stream().filter(r -> "human".equals(get(r, "generator"))).toList();
    assertEquals(1, dropped.size());
    assertEquals("human: no annotator's evidence is verbatim in the clean paragraphs (q-bad)", get(dropped.get(0), "reason"));
    assertTrue(rows(SynthesisRows.ERROR, out).isEmpty());
    assertTrue(rows(SynthesisRows.LOCATED, out).stream().allMatch(r -> SynthesisRows.YES.equals(get(r, "reason"))));
  }

  @Test
  void aQueryWhoseEvidenceIsNotInTheNoisyTextIsDroppedWithItsReason() {
    GroupContext group = Groups.group(Groups.withNoisyText(GROUP.members().get(0), "Page 1\nSomething else entirely.\n"));
    List<Row> out = GenerateQueries.generate(group, List.of(new HumanGenerator()), 2);
    assertTrue(rows(SynthesisRows.QUERY, out).isEmpty());
    assertTrue(rows(SynthesisRows.DROPPED, out).stream().anyMatch(r -> "evidence is not found in the noisy text of a".equals(get(r, "reason"))),
        out.toString());
    assertEquals(List.of(SynthesisRows.NO), rows(SynthesisRows.LOCATED, out).stream().map(r -> get(r, "reason")).toList());
  }
}
