package arbor.ingest;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;

class LatexSourceTest {

  @Test
  void formattingCommandsKeepTheirTextAndCitationsDisappear() {
    assertEquals("The R package TSP solves tours (see).",
        LatexSource.inline("The \\proglang{R}~package \\pkg{TSP} solves tours (see \\citealp[p.~3]{lawler})."));
  }

  @Test
  void accentsDashesAndQuotesBecomeCharacters() {
    assertEquals("Wirtschaftsuniversität Wien — \"quoted\" 1–2",
        LatexSource.inline("Wirtschaftsuniversit\\\"at Wien --- ``quoted'' 1--2"));
  }

  @Test
  void inlineMathKeepsSymbolsAndDropsMarkup() {
    assertEquals("where α ≤ x2 holds", LatexSource.inline("where $\\alpha \\le x^2$ holds"));
  }

  @Test
  void titleAbstractAndParagraphsComeFromTheDocument() {
    LatexSource.Text text = LatexSource.parse("""
        \\documentclass{article}
        %% a comment that must vanish
        \\title{Reading \\emph{Long} Papers}
        \\begin{document}
        \\maketitle
        \\begin{abstract}
        An abstract in an environment, 50\\% shorter than the body. % a comment
        \\end{abstract}
        \\section{Intro}
        A body paragraph that is long enough to be kept as a paragraph. % trailing comment

        \\begin{figure}
        \\caption{A figure caption that must not become a paragraph of the body text.}
        \\end{figure}
        \\begin{equation} x = \\frac{a}{b} \\end{equation}
        Another body paragraph, after the figure, also long enough to be kept here.
        \\bibliography{refs}
        A line after the bibliography that is long enough but must not be kept at all.
        \\end{document}
        """);
    assertEquals("Reading Long Papers", text.title());
    assertEquals("An abstract in an environment, 50% shorter than the body.", text.abstractText());
    assertEquals(List.of(
        "A body paragraph that is long enough to be kept as a paragraph.",
        "Another body paragraph, after the figure, also long enough to be kept here."), text.paragraphs());
    assertEquals(List.of("Intro", "Intro"), text.sections());
  }

  @Test
  void sweaveChunksAreDropped() {
    LatexSource.Text text = LatexSource.parse("""
        \\begin{document}
        Text before the chunk, which is long enough to count as a paragraph.

        <<fit, echo=TRUE>>=
        fit <- lm(y ~ x, data = d)
        summary(fit)
        @

        Text after the chunk, which is also long enough to count as a paragraph.
        \\end{document}
        """);
    assertEquals(2, text.paragraphs().size(), text.paragraphs().toString());
    assertFalse(text.paragraphs().toString().contains("lm(y"));
  }
}
