package arbor.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arbor.conf.ConfigLoader;
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
        if (cell.get("cell_type").asText().equals("code")
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
      String firstCode = "";
      for (JsonNode cell : root.get("cells")) {
        if (cell.get("cell_type").asText().equals("code")) {
          StringBuilder s = new StringBuilder();
          cell.get("source").forEach(l -> s.append(l.asText()));
          firstCode = s.toString();
          break;
        }
      }
      assertTrue(firstCode.contains("Notebook.open(System.getenv(\"ARBOR_REPO\"))"), nb + ": first code cell opens the session");
    }
  }

  @Test
  void aNotebookSessionReadsWarehouseTablesAsViewsAndRendersSparkRows() throws Exception {
    Path warehouse = TestEnv.WORK.resolve("notebook-session/warehouse");
    arbor.jobs.FileTrees.delete(warehouse.getParent());
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
}
