package arbor.ingest;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class TextReadersTest {
  private final TextPapers noise = new TextPapers(new PdfNoise(TestSettings.noise()), 0.0);

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void markdownPaperGivesTitleIdAbstractAndBodyWithoutHeadings() {
    Parsed parsed = new MarkdownPaperReader(noise).read("file-stem", "mem:x.txt", utf8("""
        # A Markdown Paper

        **Paper ID:** 1234.5678

        ## Abstract

        The abstract.

        ## Introduction

        First paragraph.

        ## Experiments ::: Datasets

        Second paragraph.
        """));
    Paper p = parsed.papers().get(0);
    assertEquals("1234.5678", p.paperId());
    assertEquals("A Markdown Paper", p.title());
    assertEquals("The abstract.", p.abstractText());
    assertEquals(List.of("First paragraph.", "Second paragraph."), p.cleanParagraphs());
    assertEquals(List.of("Introduction", "Experiments ::: Datasets"), p.sections(), "headings are kept beside the paragraphs, nested ones as their path");
    assertEquals(Paper.NOISY_SIMULATED, p.noisySource());
  }

  @Test
  void realQasperMarkdownPaperIsRead() throws Exception {
    Path papers = Path.of(System.getProperty("arbor.repo", "."), "../shared/data/qasper-train/papers");
    Assumptions.assumeTrue(Files.isDirectory(papers), "shared QASPER data absent at " + papers + ": test skipped");
    Path file = papers.resolve("1601.00901.txt");
    Parsed parsed = new MarkdownPaperReader(noise).read("1601.00901", file.toString(), Files.readAllBytes(file));
    Paper p = parsed.papers().get(0);
    assertEquals("Joint learning of ontology and semantic parser from text", p.title());
    assertTrue(p.abstractText().startsWith("Semantic parsing methods are used"));
    assertTrue(p.cleanParagraphs().get(0).startsWith("One of the ultimate goals of Natural Language Processing"));
  }

  @Test
  void emptyAndNonUtf8FilesAreErrors() {
    MarkdownPaperReader reader = new MarkdownPaperReader(noise);
    assertEquals("empty file", reader.read("e", "mem:e.md", new byte[0]).errors().get(0).reason());
    String reason = reader.read("l", "mem:l.md", new byte[] {'#', ' ', 'T', (byte) 0xE9, 't', 'e'}).errors().get(0).reason();
    assertEquals("not valid UTF-8 (bad byte 0xe9 at offset 3)", reason);
  }

  @Test
  void jsonLinesReadsGoodLinesAndReportsEachBadOne() {
    Parsed parsed = new JsonLinesReader(noise).read("mem:p.jsonl", utf8("""
        {"id": "a", "title": "Paper A", "abstract": "Abs A.", "paragraphs": ["One.", "Two."], "score": 3.5}
        {"id": "b", "title": "Paper B", "paragraphs": [
        {"id": "c", "paragraphs": ["x"]}

        {"id": "d", "title": "Paper D", "paragraphs": ["Only one."]}
        """));
    assertEquals(List.of("a", "d"), parsed.papers().stream().map(Paper::paperId).toList());
    assertEquals(3.5, parsed.papers().get(0).score());
    assertEquals(List.of("mem:p.jsonl#L2", "mem:p.jsonl#L3"), parsed.errors().stream().map(IngestError::path).toList());
    assertTrue(parsed.errors().get(0).reason().startsWith("malformed JSON"));
    assertEquals("missing field(s) [title]", parsed.errors().get(1).reason());
  }

  @Test
  void officialQasperJsonGivesPapersAndQuestionsWithPerAnnotatorEvidence() {
    Parsed parsed = new QasperJsonReader(noise).read("mem:qasper.json", utf8("""
        {"1909.00001": {"title": "T", "abstract": "A.",
          "full_text": [{"section_name": "Intro", "paragraphs": ["P one."]},
                        {"section_name": "Experiments ::: Datasets", "paragraphs": ["P two."]}],
          "qas": [{"question": "Q?", "question_id": "q1", "answers": [
              {"answer": {"unanswerable": false, "evidence": ["P one."]}},
              {"answer": {"unanswerable": false, "evidence": ["P one.", "P two."]}}]},
            {"question": "Unanswerable?", "question_id": "q2", "answers": [{"answer": {"unanswerable": true, "evidence": []}}]}]}}
        """));
    assertEquals(List.of("P one.", "P two."), parsed.papers().get(0).cleanParagraphs());
    assertEquals(List.of("Intro", "Experiments ::: Datasets"), parsed.papers().get(0).sections(), "the section's path");
    SourceQuestion q1 = parsed.questions().get(0);
    assertEquals(List.of(List.of("P one."), List.of("P one.", "P two.")), q1.evidence());
    assertTrue(q1.answerable());
    assertFalse(parsed.questions().get(1).answerable());
  }

  @Test
  void questionListGivesQuestionsOnly() {
    Parsed parsed = new QasperJsonReader(noise).read("mem:questions_x.json", utf8("""
        [{"paper_id": "p", "question_id": "q", "question": "What?",
          "answers": [{"unanswerable": false, "evidence": ["E."]}]},
         {"question_id": "orphan", "question": "No paper?"}]
        """));
    assertTrue(parsed.papers().isEmpty());
    assertEquals(List.of(List.of("E.")), parsed.questions().get(0).evidence());
    assertEquals("question entry without 'paper_id'", parsed.errors().get(0).reason());
  }

  @Test
  void malformedJsonSaysWhere() {
    Parsed parsed = new QasperJsonReader(noise).read("mem:bad.json", utf8("{\"a\": [1, 2,\n}"));
    assertTrue(parsed.errors().get(0).reason().startsWith("malformed JSON at line 2"), parsed.errors().toString());
  }
}
