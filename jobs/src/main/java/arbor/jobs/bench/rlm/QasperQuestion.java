package arbor.jobs.bench.rlm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An answerable QASPER question with its evidence paragraphs, one list per annotator (the
 * evidence F1 takes the best annotator), read from {@code questions_train.json}.
 */
public record QasperQuestion(String paperId, String questionId, String question, List<List<String>> evidence) {

  /** The answerable questions of the file, in file order; an annotator who found it unanswerable is left out. */
  public static List<QasperQuestion> readAnswerable(Path questionsJson) throws IOException {
    JsonNode root = new ObjectMapper().readTree(Files.readAllBytes(questionsJson));
    List<QasperQuestion> out = new ArrayList<>();
    for (JsonNode q : root) {
      List<List<String>> annotators = new ArrayList<>();
      for (JsonNode a : q.path("answers")) {
        if (a.path("unanswerable").asBoolean(false)) {
          continue;
        }
        List<String> paragraphs = new ArrayList<>();
        a.path("evidence").forEach(e -> paragraphs.add(e.asText()));
        annotators.add(paragraphs);
      }
      if (!annotators.isEmpty() && annotators.stream().anyMatch(p -> !p.isEmpty())) {
        out.add(new QasperQuestion(q.path("paper_id").asText(), q.path("question_id").asText(),
            q.path("question").asText(), annotators));
      }
    }
    return out;
  }
}
