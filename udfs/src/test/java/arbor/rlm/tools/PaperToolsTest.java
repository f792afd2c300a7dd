package arbor.rlm.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PaperToolsTest {
  // Noisy text as PDFBox gives it: hyphenated line breaks, ragged whitespace, a title line first.
  static final String NOISY = """
      Sparse Attention for Long Documents
      A. Author, B. Author
      Abstract
      We study sparse attention. It reduces the number of pa-
      rameters by half while keeping accuracy.

      1 Introduction
      Long documents are hard.  Our model   uses block
      sparse attention! Is it fast? Yes. The number of pa-
         rameters matters for memory. Training took 3 days.
      """;
  static final String CLEAN = """
      # Dense Retrieval Revisited

      ## Abstract

      Dense retrievers embed queries and passages. We revisit them.

      ## Method

      We train a dual encoder with in-batch negatives. The encoder has 110M parameters.
      """;

  static Map<String, String> papers() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("p1", NOISY);
    m.put("p2", CLEAN);
    return m;
  }

  @Test
  void titleAndAbstractAreReadFromPdfTextAndFromMarkdown() {
    PaperText noisy = PaperText.parse("p1", NOISY);
    assertEquals("Sparse Attention for Long Documents", noisy.title());
    assertTrue(noisy.abstractText().startsWith("We study sparse attention."), noisy.abstractText());
    assertTrue(noisy.abstractText().endsWith("keeping accuracy."), noisy.abstractText());
    PaperText clean = PaperText.parse("p2", CLEAN);
    assertEquals("Dense Retrieval Revisited", clean.title());
    assertEquals("Dense retrievers embed queries and passages. We revisit them.", clean.abstractText());
  }

  @Test
  void listPapersPrintsEachPaperAndReturnsTheIds() {
    PaperTools.Output<List<String>> out = PaperTools.listPapers(papers());
    assertEquals(List.of("p1", "p2"), out.value());
    assertTrue(out.printed().contains("Paper ID: p2\nTitle: Dense Retrieval Revisited\nAbstract: Dense"));
    assertTrue(out.printed().contains("2 papers"));
  }

  @Test
  void aHyphenatedLineBreakMatchesTheUnbrokenWord() {
    List<String> hits = PaperTools.search(papers(), "parameters", 40, true).value();
    // p1 has "pa-\nrameters" twice (abstract and body) and p2 has "parameters" once.
    assertEquals(3, hits.size(), hits.toString());
    assertTrue(hits.get(0).contains("pa-\nrameters by half"), hits.get(0));
    assertTrue(hits.get(1).contains("pa-\n   rameters matters"), hits.get(1));
    assertTrue(hits.get(2).contains("110M parameters"));
  }

  @Test
  void whitespaceRunsInTheKeywordMatchAnyWhitespace() {
    List<String> hits = PaperTools.search(NOISY, "uses   block sparse", 10, true).value();
    assertEquals(1, hits.size());
    assertTrue(hits.getFirst().contains("uses block\nsparse attention!"), hits.getFirst());
  }

  @Test
  void matchingIsCaseInsensitive() {
    assertEquals(1, PaperTools.search(CLEAN, "DUAL ENCODER", 20, true).value().size());
  }

  @Test
  void snippetsAreWidenedToSentenceBoundaries() {
    String text = "First sentence here. A keyword here. Last one.";
    // 3 characters each side end inside "A keyword here."; the edges move out to its boundaries.
    String hit = PaperTools.search(text, "keyword", 6, true).value().getFirst();
    assertEquals("A keyword here.", hit);
  }

  @Test
  void wideningGivesUpAfterWindowMoreCharacters() {
    String text = "x".repeat(200) + " keyword " + "y".repeat(200);
    String hit = PaperTools.search(text, "keyword", 20, true).value().getFirst();
    // No boundary within 20 more characters on either side: the edges stay at 10 around the hit.
    int at = text.indexOf("keyword");
    assertEquals(text.substring(at - 10, at + 7 + 10).strip(), hit);
  }

  @Test
  void forwardWindowStartsAtTheMatchSentence() {
    String text = "Alpha beta. Gamma keyword delta. Eta theta iota kappa lambda mu nu xi pi.";
    // window 10 after the match start ends inside "delta"; both edges widen to the sentence.
    String hit = PaperTools.search(text, "keyword", 10, false).value().getFirst();
    assertEquals("Gamma keyword delta.", hit);
  }

  @Test
  void overlappingSnippetsOfOnePaperAreMerged() {
    String text = "The cat sat. The cat ran. The dog slept far away from everything else here.";
    List<String> hits = PaperTools.search(text, "cat", 12, true).value();
    assertEquals(List.of("The cat sat. The cat ran."), hits);
  }

  @Test
  void searchPrintsAPaperHeaderBeforeItsNumberedSnippets() {
    String printed = PaperTools.search(papers(), "parameters", 40, true).printed();
    int header1 = printed.indexOf("=== p1: Sparse Attention for Long Documents");
    int first = printed.indexOf("[0] ");
    int header2 = printed.indexOf("=== p2: Dense Retrieval Revisited");
    int third = printed.indexOf("[2] ");
    assertTrue(header1 >= 0 && header1 < first && first < header2 && header2 < third, printed);
  }

  @Test
  void noHitsPrintsAClearLine() {
    PaperTools.Output<List<String>> out = PaperTools.search(papers(), "quantum chromodynamics", 100, true);
    assertEquals(List.of(), out.value());
    assertTrue(out.printed().startsWith("No hits for 'quantum chromodynamics' in 2 papers"), out.printed());
  }

  @Test
  void everySearchSnippetIsAVerbatimSubstringOfItsPaper() {
    for (String kw : List.of("parameters", "sparse attention", "the", "a", "encoder", ".")) {
      for (int window : List.of(1, 7, 50, 300)) {
        for (boolean bi : List.of(true, false)) {
          for (String s : PaperTools.search(papers(), kw, window, bi).value()) {
            assertTrue(NOISY.contains(s) || CLEAN.contains(s), kw + " " + window + ": " + s);
          }
        }
      }
    }
  }

  @Test
  void extractSectionCutsFromStartPhraseThroughEndPhraseVerbatim() {
    String snippet = "Long documents are hard.  Our model   uses block\nsparse attention! Is it fast?";
    PaperTools.Output<String> out = PaperTools.extractSection(snippet, "our model uses", "SPARSE attention!");
    assertEquals("Our model   uses block\nsparse attention!", out.value());
    assertEquals("", out.printed());
    assertTrue(snippet.contains(out.value()));
  }

  @Test
  void extractSectionToleratesHyphenatedBreaksInPhrases() {
    String snippet = "The number of pa-\n   rameters matters for memory. Training took 3 days.";
    assertEquals("number of pa-\n   rameters matters for memory.",
        PaperTools.extractSection(snippet, "number of parameters", "for memory.").value());
  }

  @Test
  void extractSectionWithAMissingStartPhraseReturnsEmptyAndSaysWhy() {
    PaperTools.Output<String> out = PaperTools.extractSection("Some text here.", "absent phrase", "here");
    assertEquals("", out.value());
    assertTrue(out.printed().contains("start phrase 'absent phrase' not found"), out.printed());
  }

  @Test
  void extractSectionWithAMissingEndPhraseRunsToTheEndAndSaysSo() {
    PaperTools.Output<String> out = PaperTools.extractSection("Intro. The method works well", "the method", "nowhere");
    assertEquals("The method works well", out.value());
    assertTrue(out.printed().contains("end phrase 'nowhere' not found"), out.printed());
  }

  @Test
  void extractSectionFindsTheEndPhraseAfterTheStartPhrase() {
    String snippet = "end. start here and go on to the end. after";
    assertEquals("start here and go on to the end.",
        PaperTools.extractSection(snippet, "start here", "end.").value());
  }

  @Test
  void paperAbstractGivesIdTitleAndAbstract() {
    assertEquals("Paper ID: p2\nTitle: Dense Retrieval Revisited\nAbstract: "
        + "Dense retrievers embed queries and passages. We revisit them.",
        PaperTools.paperAbstract(papers(), "p2").value());
  }

  @Test
  void paperAbstractOfAnUnknownIdIsAnErrorMessage() {
    String msg = PaperTools.paperAbstract(papers(), "p9").value();
    assertTrue(msg.startsWith("Error: unknown paper id 'p9'") && msg.contains("[p1, p2]"), msg);
  }

  @Test
  void theFastScanFindsExactlyWhatTheRegexFinds() {
    java.util.Random random = new java.util.Random(3);
    String alphabet = "abcnN eE-\n.rtAB";
    for (int round = 0; round < 200; round++) {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < 400; i++) {
        text.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String t = round % 10 == 0 ? NOISY : text.toString();
      for (String kw : List.of("ne", "an a", "e", "abc", "n-e", "parameters", "b.r", "NE  Ab")) {
        TolerantPattern p = TolerantPattern.of(kw);
        java.util.regex.Matcher m = p.matcher(t);
        List<String> slow = new java.util.ArrayList<>();
        while (m.find()) {
          slow.add(m.start() + "-" + m.end());
        }
        List<String> fast = p.findAll(t).stream().map(a -> a[0] + "-" + a[1]).toList();
        assertEquals(slow, fast, kw + " in round " + round);
      }
    }
  }
}
