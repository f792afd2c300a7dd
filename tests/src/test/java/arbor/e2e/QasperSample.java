package arbor.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** A folder of shared QASPER papers (by id) with their questions, as the ingest job reads them. */
final class QasperSample {
  private QasperSample() {}

  /** The first {@code n} QASPER paper ids, in id order. */
  static List<String> firstIds(int n) throws Exception {
    try (Stream<Path> files = Files.list(TestEnv.qasper().resolve("papers"))) {
      return files.map(p -> p.getFileName().toString().replace(".txt", "")).sorted().limit(n).toList();
    }
  }

  /** Copies {@code ids} and their questions into {@code folder} (a questions file per call, named {@code name}). */
  static void write(Path folder, List<String> ids, String name) throws Exception {
    Path shared = TestEnv.qasper();
    Files.createDirectories(folder);
    for (String id : ids) Files.copy(shared.resolve("papers/" + id + ".txt"), folder.resolve(id + ".txt"));
    ObjectMapper json = new ObjectMapper();
    ArrayNode all = (ArrayNode) json.readTree(shared.resolve("questions_train.json").toFile());
    ArrayNode mine = json.createArrayNode();
    all.forEach(q -> { if (ids.contains(q.get("paper_id").asText())) mine.add(q); });
    json.writeValue(folder.resolve("questions_" + name + ".json").toFile(), mine);
  }
}
