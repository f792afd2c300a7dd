package arbor.ingest;

import arbor.text.Hashes;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;

/**
 * JSON Lines of papers, one object per line: {@code id}, {@code title}, {@code abstract},
 * {@code paragraphs} (a list of strings) and optionally {@code score}. A bad line becomes an
 * error for that line ({@code path#L<n>}); the other lines are still read.
 */
public final class JsonLinesReader {
  public static final String SOURCE = "jsonl";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final TextPapers papers;

  public JsonLinesReader(TextPapers papers) {
    this.papers = papers;
  }

  public Parsed read(String path, byte[] bytes) {
    String text;
    try {
      text = TextFiles.utf8(bytes);
    } catch (TextFiles.NotText e) {
      return Parsed.error(SOURCE, path, e.getMessage());
    }
    Parsed.Builder out = new Parsed.Builder();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty()) continue;
      String where = path + "#L" + (i + 1);
      try {
        paper(JSON.readTree(line), line, where, out);
      } catch (JsonProcessingException e) {
        out.error(new IngestError(SOURCE, where, "malformed JSON: " + e.getOriginalMessage()));
      }
    }
    return out.build();
  }

  private void paper(JsonNode node, String line, String where, Parsed.Builder out) {
    List<String> missing = new ArrayList<>();
    for (String field : List.of("id", "title", "paragraphs")) if (!node.hasNonNull(field)) missing.add(field);
    if (!missing.isEmpty()) {
      out.error(new IngestError(SOURCE, where, "missing field(s) " + missing));
      return;
    }
    if (!node.get("paragraphs").isArray()) {
      out.error(new IngestError(SOURCE, where, "'paragraphs' must be a list of strings"));
      return;
    }
    List<String> paragraphs = new ArrayList<>();
    node.get("paragraphs").forEach(p -> { if (!p.asText("").isBlank()) paragraphs.add(p.asText().strip()); });
    if (paragraphs.isEmpty()) {
      out.error(new IngestError(SOURCE, where, "'paragraphs' is empty"));
      return;
    }
    String id = node.get("id").asText();
    String title = node.get("title").asText();
    String abs = node.path("abstract").asText("");
    Double score = node.path("score").isNumber() ? node.get("score").asDouble() : null;
    out.paper(papers.paper(SOURCE, where, id, title, abs, paragraphs, Paper.noSections(paragraphs), score, Hashes.sha256(line)));
  }
}
