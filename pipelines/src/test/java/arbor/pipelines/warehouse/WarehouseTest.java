package arbor.pipelines.warehouse;

import static org.junit.jupiter.api.Assertions.assertEquals;

import arbor.pipelines.spark.TestSpark;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class WarehouseTest {

  @Test
  void aRelativeRootBecomesAnAbsoluteUriSoExecutorsInOtherFoldersFindTheSameTables() {
    Warehouse w = new Warehouse(TestSpark.spark(), "some/warehouse/");
    String expected = Path.of("some/warehouse").toAbsolutePath().toUri().toString();
    // Hadoop writes file:/a/b where java.nio writes file:///a/b/.
    assertEquals(expected.replace("file:///", "file:/").replaceAll("/$", ""), w.root());
    assertEquals(w.root() + "/checkpoints", w.path(Table.CHECKPOINTS));
  }

  @Test
  void anAbsoluteUriStaysAsItIs() {
    assertEquals("file:/tmp/wh", new Warehouse(TestSpark.spark(), "file:/tmp/wh").root());
  }
}
