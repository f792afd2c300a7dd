package arbor.e2e;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The scheduled refresh end to end on QASPER papers arriving in an inbox folder: a first run
 * builds the dataset, a second identical run changes nothing, a run after new papers arrive adds
 * groups seeded only by them and leaves every earlier row as it was, while a reader sees the
 * tables before or after, never in between.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RefreshEndToEndTest {
  private Path inbox;
  private Path warehouse;
  private List<String> ids;

  @BeforeAll
  void firstPapersArrive() throws Exception {
    Path root = TestEnv.WORK.resolve("refresh-e2e");
    arbor.jobs.cli.FileTrees.delete(root);
    inbox = root.resolve("inbox");
    warehouse = root.resolve("warehouse");
    ids = QasperSample.firstIds(30);
    QasperSample.write(inbox, ids.subList(0, 20), "batch1");
  }

  private TestEnv.Run refresh() {
    TestEnv.Run run = TestEnv.run("refresh", "--papers", inbox.toString(), "--set", "warehouse=" + warehouse,
        "--set", "synthesis.refresh.seed_fraction=0.3", "--set", "synthesis.groups.min_similarity=0.2",
        "--set", "synthesis.groups.lsh_hashes_per_band=3", "--set", "synthesis.splits.validation=3",
        "--set", "synthesis.splits.test=3", "--set", "synthesis.splits.sft=3");
    assertEquals(0, run.code(), run.out() + run.err());
    System.out.println(run.out());
    return run;
  }

  private List<Row> table(String name) {
    return TestEnv.spark().read().format("delta").load(warehouse + "/" + name).collectAsList();
  }

  private long version(String name) {
    return TestEnv.spark().sql("DESCRIBE HISTORY delta.`" + warehouse + "/" + name + "`")
        .agg(org.apache.spark.sql.functions.max("version")).first().getLong(0);
  }

  private Set<String> column(String tableName, String column) {
    return table(tableName).stream().map(r -> String.valueOf(r.get(r.fieldIndex(column)))).collect(Collectors.toSet());
  }

  @Test
  @Order(1)
  void theFirstRunBuildsTheDatasetAndLogsItself() {
    TestEnv.Run run = refresh();
    assertTrue(run.out().contains("ingest: 20 paper(s): 20 new"), run.out());
    assertTrue(run.out().contains("embedded 20 paper(s)"), run.out());
    assertTrue(run.out().contains("refresh: 6 new group(s)"), "ceil(0.3 * 20) seeds: " + run.out());
    assertFalse(table("queries").isEmpty());
    List<Row> runs = table("refresh_runs");
    assertEquals(1, runs.size());
    Row r = runs.get(0);
    assertEquals("succeeded", r.getAs("status"));
    assertEquals(20L, (long) r.getAs("papers_new"));
    assertEquals(20L, (long) r.getAs("papers_embedded"));
    assertEquals(6L, (long) r.getAs("groups_new"));
    assertNotNull(r.getAs("finished_at"));
  }

  @Test
  @Order(2)
  void aSecondRunInARowChangesNothing() {
    List<String> tables = List.of("papers", "paper_embeddings", "paper_groups", "queries");
    List<Set<Row>> before = tables.stream().map(t -> (Set<Row>) new HashSet<>(table(t))).toList();
    List<Long> versions = List.of(version("paper_embeddings"), version("paper_groups"), version("queries"));
    TestEnv.Run run = refresh();
    assertTrue(run.out().contains("20 paper(s): 0 new, 0 updated, 20 unchanged"), run.out());
    assertTrue(run.out().contains("embedded 0 paper(s)"), run.out());
    assertTrue(run.out().contains("refresh: 0 new group(s)"), run.out());
    for (int i = 0; i < tables.size(); i++) assertEquals(before.get(i), new HashSet<>(table(tables.get(i))), tables.get(i));
    assertEquals(versions, List.of(version("paper_embeddings"), version("paper_groups"), version("queries")), "no commit at all");
    assertEquals(2, table("refresh_runs").size());
  }

  @Test
  @Order(3)
  void newPapersSeedNewGroupsAndEarlierRowsStayWhileAReaderSeesWholeSnapshots() throws Exception {
    Set<Row> groupsBefore = new HashSet<>(table("paper_groups"));
    Set<Row> queriesBefore = new HashSet<>(table("queries"));
    Set<String> queryIdsBefore = column("queries", "query_id");
    List<String> newIds = ids.subList(20, 30);
    QasperSample.write(inbox, newIds, "batch2");

    // A reader (a training job, say) reads the queries table over and over while the refresh runs.
    AtomicBoolean running = new AtomicBoolean(true);
    List<Set<String>> seen = new CopyOnWriteArrayList<>();
    List<Throwable> readerErrors = new CopyOnWriteArrayList<>();
    Thread reader = new Thread(() -> {
      while (running.get()) {
        try {
          seen.add(TestEnv.spark().read().format("delta").load(warehouse + "/queries").select("query_id").collectAsList()
              .stream().map(r -> r.getString(0)).collect(Collectors.toSet()));
        } catch (Throwable t) {
          readerErrors.add(t);
        }
      }
    });
    reader.start();
    TestEnv.Run run;
    try {
      run = refresh();
    } finally {
      running.set(false);
      reader.join();
    }
    assertTrue(readerErrors.isEmpty(), "reads never fail during a refresh: " + readerErrors);
    Set<String> queryIdsAfter = column("queries", "query_id");
    assertTrue(seen.size() >= 2, "the reader ran during the refresh: " + seen.size() + " reads");
    for (Set<String> snapshot : seen) {
      assertTrue(snapshot.equals(queryIdsBefore) || snapshot.equals(queryIdsAfter),
          "a read sees the table before or after the refresh, never part of it (" + snapshot.size() + " rows)");
    }

    assertTrue(run.out().contains("ingest: 30 paper(s): 10 new, 0 updated, 20 unchanged"), run.out());
    assertTrue(run.out().contains("embedded 10 paper(s)"), "only the new papers are embedded: " + run.out());
    assertTrue(table("paper_groups").containsAll(groupsBefore), "earlier groups are unchanged");
    assertTrue(table("queries").containsAll(queriesBefore), "earlier queries are unchanged");
    List<Row> newGroups = new ArrayList<>(table("paper_groups"));
    newGroups.removeAll(groupsBefore);
    assertEquals(3, newGroups.size(), "ceil(0.3 * 10) seeds");
    Set<String> newGroupIds = new HashSet<>();
    for (Row g : newGroups) {
      assertTrue(newIds.contains((String) g.getAs("seed_paper_id")), "new groups are seeded by new papers only");
      newGroupIds.add(g.getAs("group_id"));
    }
    for (Row q : table("queries")) {
      if (!queryIdsBefore.contains((String) q.getAs("query_id"))) assertTrue(newGroupIds.contains((String) q.getAs("group_id")),
          "new queries belong to new groups only");
    }
    Set<String> sources = new HashSet<>();
    for (Row q : table("queries")) if (q.getAs("source_id") != null) assertTrue(sources.add(q.getAs("source_id")), "a QASPER question is used once");
    List<Row> runs = table("refresh_runs");
    assertEquals(3, runs.size());
    assertTrue(runs.stream().allMatch(r -> "succeeded".equals(r.getAs("status"))));
  }
}
