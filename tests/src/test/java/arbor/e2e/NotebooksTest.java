package arbor.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.jobs.conf.ConfigLoader;
import arbor.notebook.HtmlTable;
import arbor.notebook.Notebook;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * The notebooks as committed (outputs stripped, the project's kernel, the session opened the
 * same way) and the notebook session on real Spark and Delta. Running them is
 * {@code bin/arbor notebooks --execute}, which needs Jupyter and the demo warehouse.
 */
class NotebooksTest {
  private static final Path NOTEBOOKS = TestEnv.REPO.resolve("notebooks");

  private static List<Path> notebooks() throws Exception {
    try (Stream<Path> files = Files.list(NOTEBOOKS)) {
      return files.filter(p -> p.toString().endsWith(".ipynb")).sorted().toList();
    }
  }

  @Test
  void everyCommittedNotebookHasItsOutputsStripped() throws Exception {
    List<Path> all = notebooks();
    assertFalse(all.isEmpty(), "no notebooks in " + NOTEBOOKS);
    List<String> dirty = new ArrayList<>();
    for (Path nb : all) {
      JsonNode root = new ObjectMapper().readTree(nb.toFile());
      int i = 0;
      for (JsonNode cell : root.get("cells")) {
        if (cell.path("metadata").has("execution") || cell.get("cell_type").asText().equals("code")
            && (!cell.path("outputs").isEmpty() || !cell.path("execution_count").isNull())) {
          dirty.add(nb.getFileName() + " cell " + i);
        }
        i++;
      }
    }
    assertEquals(List.of(), dirty, "outputs in git: run bin/arbor notebooks --strip before committing");
  }

  @Test
  void everyNotebookRunsOnTheArborKernelAndOpensTheCheckoutItRunsIn() throws Exception {
    for (Path nb : notebooks()) {
      JsonNode root = new ObjectMapper().readTree(nb.toFile());
      assertEquals("arbor-java", root.path("metadata").path("kernelspec").path("name").asText(), nb + ": kernel");
      // the tables it reads, by their warehouse names: --execute skips it when one is missing
      JsonNode needs = root.path("metadata").path("arbor").path("needs");
      assertTrue(needs.isArray() && !needs.isEmpty(), nb + ": metadata.arbor.needs");
      List<String> known = Stream.of(arbor.pipelines.warehouse.Table.values()).map(t -> t.tableName).toList();
      needs.forEach(t -> assertTrue(known.contains(t.asText()), nb + " needs an unknown table '" + t.asText() + "'"));
      String firstCode = "";
      for (JsonNode cell : root.get("cells")) {
        if (cell.get("cell_type").asText().equals("code")) {
          StringBuilder s = new StringBuilder();
          cell.get("source").forEach(l -> s.append(l.asText()));
          firstCode = s.toString();
          break;
        }
      }
      // Overrides may follow the checkout (04 runs policies with the demo's generation sizes).
      assertTrue(firstCode.matches("(?s).*Notebook\\.open\\(System\\.getenv\\(\"ARBOR_REPO\"\\)[,)].*"),
          nb + ": first code cell opens the session");
    }
  }

  @Test
  void aNotebookSessionReadsWarehouseTablesAsViewsAndRendersSparkRows() throws Exception {
    Path warehouse = TestEnv.WORK.resolve("notebook-session/warehouse");
    arbor.jobs.cli.FileTrees.delete(warehouse.getParent());
    var spark = TestEnv.spark();
    StructType evidence = new StructType().add("paper_id", DataTypes.StringType).add("text", DataTypes.StringType);
    StructType schema = new StructType().add("query_id", DataTypes.StringType)
        .add("evidence", DataTypes.createArrayType(evidence));
    spark.createDataFrame(List.of(RowFactory.create("q-1", List.of(RowFactory.create("p-1", "said <so>")))), schema)
        .write().format("delta").save(warehouse.resolve("queries").toString());

    var config = ConfigLoader.load(List.of(), List.of("warehouse=" + warehouse, "spark.master=local[2]",
        "spark.shuffle_partitions=2", "spark.local_dir=" + TestEnv.WORK.resolve("spark")));
    try (Notebook nb = Notebook.open(config)) {
      assertEquals(List.of("queries"), nb.tables().stream().map(t -> t.tableName).toList());
      String html = nb.html("SELECT query_id, evidence FROM queries");
      // Spark hands arrays back as Scala sequences: they must still become lists
      assertTrue(html.contains("<li><b>paper_id</b>: p-1<br><b>text</b>: said &lt;so&gt;</li>"), html);
      assertEquals(HtmlTable.render(nb.sql("SELECT query_id, evidence FROM queries")), html);
    }
    assertFalse(spark.sparkContext().isStopped(), "a borrowed session stays open");
  }

  @Test
  void aRolloutTreeIsDrawnFromTheStepTablesAndTablesTravelInTime() throws Exception {
    Path warehouse = TestEnv.WORK.resolve("notebook-tree/warehouse");
    arbor.jobs.cli.FileTrees.delete(warehouse.getParent());
    var spark = TestEnv.spark();
    // run r, step 3: root n0 with children n0.0 and n0.1; another tree (m0) that must not show
    List<org.apache.spark.sql.Row> nodes = List.of(
        node("n0", null, "n0", 0, -1, 2, "[\"evidence\"]", "final"),
        node("n0.1", "n0", "n0", 1, 1, 0, null, "max_turns"),
        node("n0.0", "n0", "n0", 1, 0, 0, "[\"x\"]", "final"),
        node("m0", null, "m0", 0, -1, 0, null, "policy_error"));
    var wh = new arbor.pipelines.warehouse.Warehouse(spark, warehouse.toString());
    wh.replaceStep(arbor.pipelines.warehouse.Table.ROLLOUT_NODES, "r", 3, spark.createDataFrame(nodes, arbor.tables.RolloutNode.SCHEMA));
    wh.replaceStep(arbor.pipelines.warehouse.Table.ROLLOUT_TURNS, "r", 3, spark.createDataFrame(List.of(
        turn("n0", 0, "let me look", "print(context[:100])", "The paper says"),
        turn("n0.0", 0, "child looks", "FINAL(['x'])", null)), arbor.tables.RolloutTurn.SCHEMA));
    var config = ConfigLoader.load(List.of(), List.of("warehouse=" + warehouse, "spark.master=local[2]",
        "spark.shuffle_partitions=2", "spark.local_dir=" + TestEnv.WORK.resolve("spark")));
    try (Notebook nb = Notebook.open(config)) {
      String html = arbor.notebook.TreeView.forRoot(nb, "r", 3, "n0");
      assertEquals(3, html.split("<rect ", -1).length - 1, "three boxes: the tree, not the other one");
      assertTrue(html.contains("print(context[:100])") && html.contains("The paper says") && html.contains("FINAL([&#39;x&#39;])"), html);
      assertFalse(html.contains("m0"));

      // A second write of the step is a new Delta version; version 0 still has the first rows.
      wh.replaceStep(arbor.pipelines.warehouse.Table.ROLLOUT_NODES, "r", 3, spark.createDataFrame(nodes.subList(3, 4), arbor.tables.RolloutNode.SCHEMA));
      assertEquals(4, nb.asOf(arbor.pipelines.warehouse.Table.ROLLOUT_NODES, 0).count());
      assertEquals(1, nb.table(arbor.pipelines.warehouse.Table.ROLLOUT_NODES).count());
      assertEquals(1L, nb.history(arbor.pipelines.warehouse.Table.ROLLOUT_NODES).first().<Long>getAs("version"));
    }
  }

  private static org.apache.spark.sql.Row node(String id, String parent, String root, int depth, int childIndex, int children,
      String answer, String status) {
    return RowFactory.create("r", 3L, id, "q-1", 0, parent, root, depth, childIndex, children, "prompt of " + id, answer,
        status, null, 1, 10L, 100L, "scripted", 0L);
  }

  private static org.apache.spark.sql.Row turn(String node, int turn, String response, String code, String observation) {
    return RowFactory.create("r", 3L, node, turn, "[]", null, null, null, response, List.of(code), observation, false,
        "stop", false, 1.0, 1.0, 0, 7L, 0L, 5L, 6L);
  }
}
