package arbor.ingest;

import arbor.text.Hashes;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * QASPER's JSON, in both forms: the official release (an object mapping each paper id to its
 * {@code title}, {@code abstract}, {@code full_text} sections and {@code qas}), which yields
 * papers and questions; and a list of question entries ({@code questions_*.json}, each with
 * {@code paper_id}, {@code question_id}, {@code question} and {@code answers}), which yields
 * questions only.
 */
public final class QasperJsonReader {
  public static final String SOURCE = "qasper";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final TextPapers papers;

  public QasperJsonReader(TextPapers papers) {
    this.papers = papers;
  }

  public Parsed read(String path, byte[] bytes) {
    JsonNode root;
    try {
      root = JSON.readTree(TextFiles.utf8(bytes));
    } catch (TextFiles.NotText e) {
      return Parsed.error(SOURCE, path, e.getMessage());
    } catch (JsonProcessingException e) {
      return Parsed.error(SOURCE, path, "malformed JSON at line " + e.getLocation().getLineNr()
          + ", column " + e.getLocation().getColumnNr() + ": " + e.getOriginalMessage());
    } catch (IOException e) {
      return Parsed.error(SOURCE, path, "unreadable JSON: " + e.getMessage());
    }
    Parsed.Builder out = new Parsed.Builder();
    if (root.isArray()) {
      int index = 0;
      for (JsonNode entry : root) questionEntry(entry, path + "#" + index++, out);
    } else if (root.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
        var e = it.next();
        officialPaper(e.getKey(), e.getValue(), path + "#" + e.getKey(), out);
      }
    } else {
      out.error(new IngestError(SOURCE, path, "expected a JSON object of papers or a list of questions, got " + root.getNodeType()));
    }
    return out.build();
  }

  private void officialPaper(String paperId, JsonNode paper, String where, Parsed.Builder out) {
    String title = paper.path("title").asText("");
    if (title.isBlank() || !paper.path("full_text").isArray()) {
      out.error(new IngestError(SOURCE, where, "paper entry without 'title' or 'full_text'"));
      return;
    }
    String abs = paper.path("abstract").asText("");
    List<String> paragraphs = new ArrayList<>();
    List<String> sections = new ArrayList<>();
    for (JsonNode section : paper.path("full_text")) {
      // QASPER names nested sections "Parent ::: Child"; the whole path is the heading.
      String heading = Paper.headingPath(section.path("section_name").asText(""));
      for (JsonNode p : section.path("paragraphs")) {
        if (!p.asText("").isBlank()) {
          paragraphs.add(p.asText().strip());
          sections.add(heading);
        }
      }
    }
    if (paragraphs.isEmpty()) {
      out.error(new IngestError(SOURCE, where, "paper has no paragraphs in 'full_text'"));
      return;
    }
    out.paper(papers.paper(SOURCE, where, paperId, title, abs, paragraphs, sections, null, Hashes.sha256(paper.toString())));
    for (JsonNode qa : paper.path("qas")) {
      List<JsonNode> answers = new ArrayList<>();
      qa.path("answers").forEach(a -> answers.add(a.path("answer")));
      question(paperId, qa, answers, where, out);
    }
  }

  private void questionEntry(JsonNode entry, String where, Parsed.Builder out) {
    if (!entry.hasNonNull("paper_id")) {
      out.error(new IngestError(SOURCE, where, "question entry without 'paper_id'"));
      return;
    }
    List<JsonNode> answers = new ArrayList<>();
    entry.path("answers").forEach(answers::add);
    question(entry.get("paper_id").asText(), entry, answers, where, out);
  }

  private void question(String paperId, JsonNode qa, List<JsonNode> answers, String where, Parsed.Builder out) {
    if (!qa.hasNonNull("question_id") || !qa.hasNonNull("question")) {
      out.error(new IngestError(SOURCE, where, "question without 'question_id' or 'question'"));
      return;
    }
    List<List<String>> evidence = new ArrayList<>();
    boolean answerable = false;
    for (JsonNode answer : answers) {
      if (answer.path("unanswerable").asBoolean(false)) continue;
      answerable = true;
      List<String> paragraphs = new ArrayList<>();
      answer.path("evidence").forEach(e -> paragraphs.add(e.asText()));
      evidence.add(paragraphs);
    }
    out.question(new SourceQuestion(paperId, qa.get("question_id").asText(), qa.get("question").asText(),
        evidence, answerable, where));
  }
}
