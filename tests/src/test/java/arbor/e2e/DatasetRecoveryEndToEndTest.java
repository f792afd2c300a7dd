package arbor.e2e;

import static org.junit.jupiter.api.Assertions.*;

import arbor.conf.ArborConfig;
import arbor.jobs.conf.ConfigLoader;
import arbor.jobs.cli.JobContext;
import arbor.jobs.refresh.RefreshJob;
import arbor.jobs.synthesize.SynthesizeJob;
import arbor.synthesis.Queries;
import arbor.pipelines.warehouse.Table;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Crashes and changes: {@code synthesize} is crashed before each of its warehouse writes in turn,
 * {@code refresh} before each of its own (through the test-only fault point
 * {@link JobContext#beforeEachWrite}), and the next run must leave the same dataset as a run that
 * never crashed; a paper whose text changes has its stale queries retired, not deleted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatasetRecoveryEndToEndTest {
  private Path root;
  private Path papers;

  private static final List<String> SETTINGS = List.of("synthesis.target_queries=12", "synthesis.groups.min_similarity=0.2",
      "synthesis.groups.lsh_hashes_per_band=3", "synthesis.splits.validation=3", "synthesis.splits.test=3",
      "synthesis.splits.sft=3", "synthesis.refresh.seed_fraction=0.5");

  @BeforeAll
  void papers() throws Exception {
    root = TestEnv.WORK.resolve("recovery-e2e");
    arbor.jobs.cli.FileTrees.delete(root);
    papers = root.resolve("papers");
    QasperSample.write(papers, QasperSample.firstIds(12), "sample");
  }

  private static final class Fault extends RuntimeException {
    Fault(String message) {
      super(message);
    }
  }

  /** A job context on {@code warehouse} whose {@code failAt}-th write (1-based; 0: none) throws; {@code writes} counts them. */
  private JobContext context(String job, Path warehouse, int failAt, List<String> writes) {
    TestEnv.spark();
    List<String> sets = new ArrayList<>(SETTINGS);
    sets.add("warehouse=" + warehouse);
    ArborConfig config = ConfigLoader.load(List.of(), sets);
    JobContext context = new JobContext(job, config, List.of(), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    AtomicInteger n = new AtomicInteger();
    context.beforeEachWrite(table -> {
      writes.add(table.tableName);
      if (n.incrementAndGet() == failAt) throw new Fault("fault injected before write " + failAt + " (" + table.tableName + ")");
    });
    return context;
  }

  private void ingest(Path warehouse) {
    TestEnv.Run run = TestEnv.run("ingest", "--papers", papers.toString(), "--set", "warehouse=" + warehouse);
    assertEquals(0, run.code(), run.out() + run.err());
  }

  /** What a dataset is, run-independent: groups, queries with their splits and retirement, errors, seeded papers. */
  private Set<String> state(Path warehouse) {
    Set<String> out = new TreeSet<>();
    for (Row r : rows(warehouse, Table.PAPER_GROUPS)) out.add("group " + r.getAs("group_id") + " " + r.getList(r.fieldIndex("paper_ids")));
    for (Row r : rows(warehouse, Table.QUERIES)) {
      out.add("query " + r.getAs(Queries.QUERY_ID) + " " + r.getAs(Queries.SPLIT) + " retired=" + (r.getAs(Queries.RETIRED_AT) != null));
    }
    if (Files.exists(warehouse.resolve("synthesis_errors"))) {
      for (Row r : rows(warehouse, Table.SYNTHESIS_ERRORS)) out.add("error " + r.getAs("group_id") + " " + r.getAs("generator"));
    }
    for (Row r : rows(warehouse, Table.PAPER_EMBEDDINGS)) out.add("embedded " + r.getAs("paper_id") + " seeded=" + (r.getAs("seeded_at") != null));
    return out;
  }

  private static void copy(Path from, Path to) throws java.io.IOException {
    Files.createDirectories(to);
    if (!Files.exists(from)) return;
    try (var files = Files.walk(from)) {
      for (Path f : files.toList()) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) Files.createDirectories(target);
        else Files.copy(f, target);
      }
    }
  }

  private static List<Row> rows(Path warehouse, Table table) {
    return TestEnv.spark().read().format("delta").load(warehouse.resolve(table.tableName).toString()).collectAsList();
  }

  /**
   * A job context on {@code warehouse} that copies the warehouse into {@code crashes/<k>} just
   * before its k-th write: each copy is exactly what a crash before that write leaves behind
   * (every write is one atomic MERGE and nothing else persists), so one run yields the aftermath
   * of a crash at every write, without running the job once per crash.
   */
  private JobContext snapshotting(String job, Path warehouse, Path crashes, List<String> writes) {
    JobContext context = context(job, warehouse, 0, new ArrayList<>());
    context.beforeEachWrite(table -> {
      writes.add(table.tableName);
      try {
        copy(warehouse, crashes.resolve(Integer.toString(writes.size())));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    return context;
  }

  @Test
  void aSynthesizeThatCrashesBeforeAnyOfItsWritesIsCompletedByTheNextRun() throws Exception {
    Path reference = root.resolve("synthesize-reference");
    ingest(reference);
    List<String> writes = new ArrayList<>();
    Path crashes = root.resolve("synthesize-crashes");
    try (JobContext c = snapshotting("synthesize", reference, crashes, writes)) {
      SynthesizeJob.synthesize(c);
    }
    Set<String> expected = state(reference);
    assertTrue(expected.stream().anyMatch(s -> s.startsWith("query ")), expected.toString());
    assertEquals(List.of("paper_embeddings", "paper_groups", "queries", "synthesis_errors", "paper_embeddings"), writes,
        "embeddings, groups, queries, errors, seeded marks");
    // From the second write on: a crash before the first leaves the ingested tables alone, so
    // the next run is a fresh synthesize (SynthesizeEndToEndTest).
    for (int k = 2; k <= writes.size(); k++) {
      Path crashed = crashes.resolve(Integer.toString(k));
      try (JobContext c = context("synthesize", crashed, 0, new ArrayList<>())) {
        SynthesizeJob.synthesize(c);
      }
      assertEquals(expected, state(crashed), "crashed before write " + k + " (" + writes.get(k - 1) + ") of " + writes);
    }
  }

  /** The tables the dataset builder writes: synthesize and refresh share it. */
  private static final Set<String> BUILDER_TABLES = Set.of("paper_embeddings", "paper_groups", "queries", "synthesis_errors");

  private Path refreshReference;
  private List<String> refreshWrites;

  /** One uninterrupted refresh, copied before each of its writes (see {@link #snapshotting}). */
  private synchronized Path refreshReference() throws Exception {
    if (refreshReference == null) {
      Path reference = root.resolve("refresh-reference");
      List<String> writes = new ArrayList<>();
      try (JobContext c = snapshotting("refresh", reference, root.resolve("refresh-crashes"), writes)) {
        RefreshJob.refresh(c, List.of(papers.toString()));
      }
      refreshReference = reference;
      refreshWrites = writes;
    }
    return refreshReference;
  }

  @Test
  void aRefreshThatCrashesBeforeItsWritesIsCompletedByTheNextRun() throws Exception {
    Set<String> expected = state(refreshReference());
    List<String> writes = refreshWrites;
    assertTrue(expected.stream().anyMatch(s -> s.startsWith("query ")), expected.toString());
    assertTrue(writes.containsAll(List.of("papers", "paper_embeddings", "paper_groups", "queries", "synthesis_errors")), writes.toString());
    // Before the first write (the run logged as running) nothing exists yet: a fresh refresh,
    // tested elsewhere. From the second on, a crash before each write, ingest's, the dataset
    // builder's and the run's final log entry alike, is completed by the next run.
    for (int k = 2; k <= writes.size(); k++) {
      String table = writes.get(k - 1);
      Path crashed = root.resolve("refresh-crashes").resolve(Integer.toString(k));
      try (JobContext c = context("refresh", crashed, 0, new ArrayList<>())) {
        RefreshJob.refresh(c, List.of(papers.toString()));
      }
      assertEquals(expected, state(crashed), "crashed before write " + k + " (" + table + ") of " + writes);
    }
  }

  @Test
  void aRefreshThatFailsAtAWriteIsLoggedAsFailedAndTheNextRunCompletesIt() throws Exception {
    Path reference = refreshReference();
    Path crashed = root.resolve("refresh-failed");
    try (JobContext c = context("refresh", crashed, 0, new ArrayList<>())) {
      c.beforeEachWrite(table -> {
        if (table == Table.QUERIES) throw new Fault("fault injected before the queries write");
      });
      Fault fault = assertThrows(Fault.class, () -> RefreshJob.refresh(c, List.of(papers.toString())));
      assertTrue(fault.getMessage().contains("queries"), fault.getMessage());
    }
    List<Row> runs = rows(crashed, Table.REFRESH_RUNS);
    assertEquals(1, runs.size());
    assertEquals("failed", runs.get(0).getAs("status"));
    assertFalse(Files.exists(crashed.resolve("queries")), "the fault came before the queries were written");
    try (JobContext c = context("refresh", crashed, 0, new ArrayList<>())) {
      RefreshJob.refresh(c, List.of(papers.toString()));
    }
    assertEquals(state(reference), state(crashed));
  }

  @Test
  void aPaperWhoseTextChangedHasItsStaleQueriesRetiredAndKept() throws Exception {
    Path warehouse = root.resolve("retire");
    Path inbox = root.resolve("retire-papers");
    copy(papers, inbox);
    TestEnv.Run ingest = TestEnv.run("ingest", "--papers", inbox.toString(), "--set", "warehouse=" + warehouse);
    assertEquals(0, ingest.code(), ingest.err());
    try (JobContext c = context("synthesize", warehouse, 0, new ArrayList<>())) {
      SynthesizeJob.synthesize(c);
    }
    // Rewrite one evidence paragraph of one query in its paper's file, then ingest and synthesize again.
    Row victim = rows(warehouse, Table.QUERIES).get(0);
    Row evidence = victim.<Row>getList(victim.fieldIndex(Queries.EVIDENCE)).get(0);
    Path file = inbox.resolve(evidence.getAs("paper_id") + ".txt");
    String text = Files.readString(file);
    String paragraph = evidence.getAs("text");
    assertTrue(text.contains(paragraph), "the evidence is a paragraph of " + file);
    Files.writeString(file, text.replace(paragraph, "This paragraph was rewritten by the authors in a later version."));
    ingest = TestEnv.run("ingest", "--papers", inbox.toString(), "--set", "warehouse=" + warehouse);
    assertEquals(0, ingest.code(), ingest.err());
    List<Row> before = rows(warehouse, Table.QUERIES);
    try (JobContext c = context("synthesize", warehouse, 0, new ArrayList<>())) {
      SynthesizeJob.synthesize(c);
    }
    List<Row> after = rows(warehouse, Table.QUERIES);
    assertEquals(before.size(), after.size(), "nothing is deleted");
    Row retired = after.stream().filter(r -> r.getAs(Queries.QUERY_ID).equals(victim.getAs(Queries.QUERY_ID))).findFirst().orElseThrow();
    assertNotNull(retired.getAs(Queries.RETIRED_AT));
    assertEquals("evidence is no longer verbatim in the clean paragraphs (" + evidence.getAs("paper_id") + ")",
        retired.getAs(Queries.RETIRED_REASON));
    for (Row r : after) {
      boolean usesIt = r.<Row>getList(r.fieldIndex(Queries.EVIDENCE)).stream().anyMatch(e -> e.getAs("text").equals(paragraph));
      assertEquals(usesIt, r.getAs(Queries.RETIRED_AT) != null, "retired exactly when its evidence changed: " + r);
    }
    long active = Queries.active(TestEnv.spark().read().format("delta").load(warehouse.resolve("queries").toString())).count();
    assertEquals(after.stream().filter(r -> r.getAs(Queries.RETIRED_AT) == null).count(), active);
  }
}
