package arbor.e2e;

import static org.junit.jupiter.api.Assertions.*;

import arbor.ingest.TestPdfs;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The ingest job end to end on local Spark and real Delta tables: real R-package PDFs (with and
 * without their LaTeX sources), generated PDFs, QASPER markdown and questions, JSON Lines, and
 * every kind of bad input, in one folder.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class IngestEndToEndTest {
  private static final List<String> QASPER_PAPERS = List.of("1601.00901", "1601.01705", "1601.02166");

  private Path inputs;
  private Path warehouse;

  @BeforeAll
  void buildTheInputFolder() throws Exception {
    Path root = Files.createDirectories(TestEnv.WORK.resolve("ingest-e2e"));
    arbor.jobs.cli.FileTrees.delete(root);
    inputs = Files.createDirectories(root.resolve("inputs"));
    warehouse = root.resolve("warehouse");
    Path real = TestEnv.realCorpus();

    Path pdfs = Files.createDirectories(inputs.resolve("pdfs"));
    Files.copy(real.resolve("r-cran-tsp/TSP.pdf"), pdfs.resolve("TSP.pdf"));
    Files.copy(real.resolve("r-cran-tsp/TSP.Rnw"), pdfs.resolve("TSP.Rnw"));
    Files.copy(real.resolve("r-cran-dbscan/dbscan.pdf"), pdfs.resolve("dbscan.pdf")); // no source beside it
    byte[] generated = TestPdfs.paper("A Generated Paper About Evidence", "An abstract that is long enough to be taken as the abstract of this paper.",
        List.of("A body paragraph that the test wrote itself, with known text in it for the reader to find."));
    Files.write(pdfs.resolve("generated.pdf"), generated);
    Files.write(pdfs.resolve("corrupt.pdf"), "%PDF-1.7\nnot really a PDF at all".getBytes(StandardCharsets.US_ASCII));
    Files.write(pdfs.resolve("truncated.pdf"), Arrays.copyOf(generated, generated.length / 3));
    Files.write(pdfs.resolve("encrypted.pdf"), TestPdfs.encrypted(generated));
    Files.write(pdfs.resolve("scanned.pdf"), TestPdfs.withoutText());

    Path texts = Files.createDirectories(inputs.resolve("texts"));
    Files.write(texts.resolve("empty.txt"), new byte[0]);
    Files.write(texts.resolve("latin1.md"), "# Caf\u00e9 paper\n\nBody.\n".getBytes(StandardCharsets.ISO_8859_1));
    Files.writeString(texts.resolve("notes.csv"), "not,a,paper\n");
    Files.writeString(texts.resolve("papers.jsonl"), """
        {"id": "jl-1", "title": "First JSON Lines Paper", "abstract": "One.", "paragraphs": ["Alpha paragraph.", "Beta paragraph."], "score": 2.0}
        {"id": "jl-2", "title": "Broken
        {"id": "jl-3", "title": "Third JSON Lines Paper", "paragraphs": ["Gamma paragraph."]}
        """);
    Files.writeString(texts.resolve("huge.jsonl"), "{\"id\": \"big\"}\n".repeat(100_000)); // over 1 MB

    Path qasper = Files.createDirectories(inputs.resolve("qasper"));
    Path shared = TestEnv.qasperOrNull();
    if (shared != null) {
      for (String id : QASPER_PAPERS) Files.copy(shared.resolve("papers/" + id + ".txt"), qasper.resolve(id + ".txt"));
      ObjectMapper json = new ObjectMapper();
      ArrayNode all = (ArrayNode) json.readTree(shared.resolve("questions_train.json").toFile());
      ArrayNode mine = json.createArrayNode();
      all.forEach(q -> { if (QASPER_PAPERS.contains(q.get("paper_id").asText())) mine.add(q); });
      json.writeValue(qasper.resolve("questions_train.json").toFile(), mine);
    } else {
      // Without the shared QASPER sample, papers and questions of the same two forms.
      for (String id : QASPER_PAPERS) {
        Files.writeString(qasper.resolve(id + ".txt"), "# Paper " + id + "\n\n**Paper ID:** " + id
            + "\n\n## Abstract\n\nAn abstract.\n\n## Introduction\n\nA paragraph of " + id + ".\n");
      }
      Files.writeString(qasper.resolve("questions_train.json"), "[" + String.join(",", QASPER_PAPERS.stream().map(id ->
          "{\"paper_id\": \"" + id + "\", \"question_id\": \"q-" + id + "\", \"question\": \"What?\", "
              + "\"answers\": [{\"unanswerable\": false, \"evidence\": [\"A paragraph of " + id + ".\"]}]}").toList()) + "]");
    }
  }

  private TestEnv.Run ingest() {
    return TestEnv.run("ingest", "--papers", inputs.toString(), "--set", "warehouse=" + warehouse,
        "--set", "ingest.max_file_mb=1");
  }

  private List<Row> sql(String query) {
    TestEnv.Run run = TestEnv.run("sql", query, "--json", "--set", "warehouse=" + warehouse);
    assertEquals(0, run.code(), run.err());
    return TestEnv.spark().read().json(TestEnv.spark().createDataset(run.out().lines().toList(),
        org.apache.spark.sql.Encoders.STRING())).collectAsList();
  }

  @Test
  @Order(1)
  void goodInputsBecomePapersAndEveryBadInputAnError() throws Exception {
    TestEnv.Run run = ingest();
    assertEquals(0, run.code(), run.out() + run.err());
    assertTrue(run.out().contains("ingest: 8 paper(s): 8 new, 0 updated, 0 unchanged"), run.out());

    Map<String, Row> papers = TestEnv.spark().read().format("delta").load(warehouse + "/papers").collectAsList().stream()
        .collect(Collectors.toMap(r -> r.getAs("paper_id"), r -> r));
    assertEquals(Set.of("pdfs/TSP", "pdfs/dbscan", "pdfs/generated", "jl-1", "jl-3", "1601.00901", "1601.01705", "1601.02166"),
        papers.keySet());
    Row tsp = papers.get("pdfs/TSP");
    assertEquals("TSP – Infrastructure for the Traveling Salesperson Problem", tsp.getAs("title"));
    assertEquals("pdf", tsp.getAs("noisy_source"));
    assertEquals("dbscan: Fast Density-based Clustering with R", papers.get("pdfs/dbscan").getAs("title"));
    Row qasperPaper = papers.get("1601.00901");
    assertEquals(firstLine(inputs.resolve("qasper/1601.00901.txt")).substring(2), qasperPaper.getAs("title"));
    assertEquals("simulated", qasperPaper.getAs("noisy_source"));
    assertEquals(2.0, (double) papers.get("jl-1").getAs("score"));
    assertEquals(List.of("Alpha paragraph.", "Beta paragraph."), papers.get("jl-1").getList(papers.get("jl-1").fieldIndex("clean_paragraphs")));

    Map<String, String> errors = new HashMap<>();
    for (Row r : TestEnv.spark().read().format("delta").load(warehouse + "/ingest_errors").collectAsList()) {
      String path = r.getAs("path");
      errors.put(path.substring(path.lastIndexOf('/') + 1), r.getAs("reason"));
    }
    assertTrue(errors.get("corrupt.pdf").startsWith("corrupt or truncated PDF"), errors.toString());
    assertTrue(errors.get("truncated.pdf").startsWith("corrupt or truncated PDF"), errors.toString());
    assertEquals("encrypted PDF: it needs a password to open", errors.get("encrypted.pdf"));
    assertTrue(errors.get("scanned.pdf").startsWith("no text layer"), errors.toString());
    assertEquals("empty file", errors.get("empty.txt"));
    assertTrue(errors.get("latin1.md").startsWith("not valid UTF-8"), errors.toString());
    assertTrue(errors.get("huge.jsonl").contains("over the limit of 1 MB (ingest.max_file_mb)"), errors.toString());
    assertTrue(errors.get("papers.jsonl#L2").startsWith("malformed JSON"), errors.toString());
    assertEquals(8, errors.size(), "one error per bad input, nothing else: " + errors);
    assertFalse(errors.containsKey("notes.csv"), "other file types in folders are skipped, not errors");
    assertTrue(run.out().contains("1 of other types skipped"), run.out());

    long questions = TestEnv.spark().read().format("delta").load(warehouse + "/source_questions").count();
    assertTrue(questions >= 3, "QASPER questions of the three papers: " + questions);
  }

  @Test
  @Order(2)
  void reingestingTheSameInputsChangesNothing() {
    long versionBefore = version("papers");
    TestEnv.Run run = ingest();
    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().contains("8 paper(s): 0 new, 0 updated, 8 unchanged"), run.out());
    assertEquals(1, sql("SELECT count(DISTINCT ingested_at) AS n FROM papers").get(0).getLong(0), "no row was rewritten");
    assertTrue(version("papers") <= versionBefore + 1, "at most an empty MERGE commit");
  }

  @Test
  @Order(3)
  void aChangedFileUpdatesItsRowAndAFixedFileClearsItsError() throws Exception {
    Path jsonl = inputs.resolve("texts/papers.jsonl");
    Files.writeString(jsonl, Files.readString(jsonl).replace("First JSON Lines Paper", "First Paper, Revised")
        .replace("{\"id\": \"jl-2\", \"title\": \"Broken", "{\"id\": \"jl-2\", \"title\": \"Mended\", \"paragraphs\": [\"Fixed.\"]}"));
    TestEnv.Run run = ingest();
    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().contains("9 paper(s): 1 new, 1 updated, 7 unchanged"), run.out());
    assertTrue(run.out().contains("1 earlier error(s) cleared"), run.out());
    assertEquals("First Paper, Revised", sql("SELECT title FROM papers WHERE paper_id = 'jl-1'").get(0).getString(0));
    assertEquals(0, sql("SELECT count(*) AS n FROM ingest_errors WHERE path LIKE '%papers.jsonl#L2'").get(0).getLong(0));
  }

  @Test
  @Order(4)
  void nothingIngestibleExitsWithOneAndStillRecordsTheErrors() throws Exception {
    Path onlyBad = Files.createDirectories(inputs.getParent().resolve("only-bad"));
    Files.write(onlyBad.resolve("broken.pdf"), "%PDF-1.4 garbage".getBytes(StandardCharsets.US_ASCII));
    Path otherWarehouse = inputs.getParent().resolve("warehouse-bad");
    TestEnv.Run run = TestEnv.run("ingest", "--papers", onlyBad.toString(), "/no/such/folder", "--set", "warehouse=" + otherWarehouse);
    assertEquals(1, run.code(), run.out() + run.err());
    List<Row> errors = TestEnv.spark().read().format("delta").load(otherWarehouse + "/ingest_errors").orderBy("path").collectAsList();
    assertEquals(2, errors.size());
    assertEquals("no such file or folder", errors.get(0).getAs("reason"));
  }

  @Test
  @Order(5)
  void sqlPrintsATableOrJsonLines() {
    TestEnv.Run table = TestEnv.run("sql", "SELECT source, count(*) AS n FROM papers GROUP BY source ORDER BY source",
        "--set", "warehouse=" + warehouse);
    assertEquals(0, table.code(), table.err());
    assertTrue(table.out().startsWith("source   | n"), table.out());
    assertTrue(table.out().contains("markdown | 3"), table.out());
    List<Row> rows = sql("SELECT paper_id FROM papers WHERE source = 'jsonl' ORDER BY paper_id");
    assertEquals(List.of("jl-1", "jl-2", "jl-3"), rows.stream().map(r -> r.getString(0)).toList());
    TestEnv.Run bad = TestEnv.run("sql", "SELECT * FROM no_such_table", "--set", "warehouse=" + warehouse);
    assertEquals(2, bad.code());
    assertTrue(bad.err().contains("tables under"), bad.err());
  }

  private static String firstLine(Path file) throws java.io.IOException {
    return Files.readAllLines(file).get(0);
  }

  private long version(String table) {
    return TestEnv.spark().sql("DESCRIBE HISTORY delta.`" + warehouse + "/" + table + "`").agg(org.apache.spark.sql.functions.max("version")).first().getLong(0);
  }
}
