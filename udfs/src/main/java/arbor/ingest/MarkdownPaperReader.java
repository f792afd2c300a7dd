package arbor.ingest;

import arbor.text.Hashes;
import java.util.ArrayList;
import java.util.List;

/**
 * A paper as markdown, the form of {@code qasper-train/papers/<id>.txt}: a {@code # title}
 * line, an optional {@code **Paper ID:**} line, a {@code ## Abstract} section, then
 * {@code ## section} headings with paragraphs separated by blank lines. Headings are structure,
 * not paragraphs; the paper id is the {@code Paper ID} line's, else the file name's.
 */
public final class MarkdownPaperReader {
  public static final String SOURCE = "markdown";

  private final TextPapers papers;

  public MarkdownPaperReader(TextPapers papers) {
    this.papers = papers;
  }

  public Parsed read(String fallbackId, String path, byte[] bytes) {
    String text;
    try {
      text = TextFiles.utf8(bytes);
    } catch (TextFiles.NotText e) {
      return Parsed.error(SOURCE, path, e.getMessage());
    }
    String title = null;
    String paperId = fallbackId;
    StringBuilder abstractText = new StringBuilder();
    List<String> paragraphs = new ArrayList<>();
    List<String> sections = new ArrayList<>();
    String section = null;
    for (String block : text.replace("\r\n", "\n").split("\\n\\s*\\n")) {
      String b = block.strip();
      if (b.isEmpty()) continue;
      if (title == null && b.startsWith("# ")) {
        title = b.substring(2).strip();
      } else if (b.startsWith("**Paper ID:**")) {
        paperId = b.substring("**Paper ID:**".length()).strip();
      } else if (b.startsWith("#")) {
        // QASPER writes nested sections as "Parent ::: Child": the whole path is kept, so a
        // subsection's paragraphs still belong to the section they are part of.
        section = Paper.headingPath(b.replaceFirst("^#+", ""));
      } else if (section != null && section.equalsIgnoreCase("abstract")) {
        abstractText.append(abstractText.isEmpty() ? "" : " ").append(b);
      } else if (title != null) {
        paragraphs.add(b);
        sections.add(section == null ? "" : section);
      }
    }
    if (title == null || title.isBlank()) {
      return Parsed.error(SOURCE, path, "not a markdown paper: no '# title' line");
    }
    if (paragraphs.isEmpty()) {
      return Parsed.error(SOURCE, path, "no body paragraphs after the title");
    }
    String abs = abstractText.toString();
    return Parsed.of(papers.paper(SOURCE, path, paperId, title, abs, paragraphs, sections, null, Hashes.sha256(bytes)));
  }
}
