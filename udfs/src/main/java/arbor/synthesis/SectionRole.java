package arbor.synthesis;

import arbor.ingest.Paper;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a section of a paper is for, read from its heading, and how to ask about it without the
 * heading's words: the question says what the section does ("the systems it measures itself
 * against"), never what it is called ("Baselines"), so a search for a word of the question does
 * not land on it. The first role whose pattern matches a heading is the section's role.
 */
public enum SectionRole {
  CONCLUSIONS("^(conclusions?|concluding remarks|summary|summary and outlook)\\b.*|.*\\bconclu.*",
      "In its closing remarks, what does \"%s\" claim to have shown?",
      "what they claim, in closing, to have shown"),
  ERRORS(".*\\b(error analysis|case stud(y|ies)|qualitative analysis|failure (cases|modes)|examples of errors)\\b.*",
      "Where, by its own inspection of individual outputs, does the system of \"%s\" go wrong?",
      "where, looking at single outputs, their systems go wrong"),
  ABLATION(".*\\bablations?\\b.*",
      "What happens in \"%s\" when parts of the system are taken away one at a time?",
      "what happens when parts of their systems are taken away one at a time"),
  HUMAN(".*\\b(human|manual) (evaluation|judgements?|assessment)\\b.*",
      "How did people rate the outputs in \"%s\", and what did their ratings show?",
      "how people rated their outputs"),
  BASELINES(".*\\b(baselines?|compared (methods|models|systems)|comparison (methods|models|systems)|competing (methods|systems))\\b.*",
      "Against which competing systems does \"%s\" measure its own, and how are they set up?",
      "the competing systems they measure their own against"),
  METRICS(".*\\b(metrics?|evaluation (measures?|criteria)|measures of performance)\\b.*",
      "With which yardsticks does \"%s\" score the quality of what its system produces?",
      "the yardsticks they score their systems' output with"),
  DATA(".*\\b(data ?sets?|corpus|corpora|data collection|data|benchmarks?)\\b.*",
      "Which collections of examples does \"%s\" learn from or test on, and how were they gathered?",
      "the collections of examples they learn from or test on"),
  SETUP(".*\\b(implementation details?|training details?|experimental (setup|settings?)|hyper-?parameters?|setup|settings?|computational details)\\b.*",
      "How were the models in \"%s\" configured and run in practice?",
      "how their models were configured and run in practice"),
  PREPROCESSING(".*\\b(pre-?processing|text normali[sz]ation|tokeni[sz]ation)\\b.*",
      "How is raw input cleaned up and prepared before modelling in \"%s\"?",
      "how raw input is cleaned up and prepared before modelling"),
  LIMITATIONS(".*\\b(limitations?|future (work|directions?|research)|open (problems|questions)|outlook)\\b.*",
      "What does \"%s\" leave unsolved, or plan to do next?",
      "what they leave unsolved or plan to do next"),
  RELATED(".*\\b(related (work|works|research)|prior work|previous work|background|literature review)\\b.*",
      "Which earlier lines of research does \"%s\" place itself among, and how does it set itself apart?",
      "the earlier lines of research they place themselves among"),
  USAGE(".*\\b(examples?|illustrations?|usage|using the package|tutorial|getting started|applications?)\\b.*",
      "How is the software of \"%s\" put to work on a concrete problem, step by step?",
      "how their software is put to work on concrete problems"),
  MOTIVATION("^(introduction|motivation)$",
      "What problem does \"%s\" set out to address, and why does it matter?",
      "the problem they set out to address and why it matters");

  private final Pattern heading;
  private final String aboutOne;
  private final String across;

  SectionRole(String heading, String aboutOne, String across) {
    this.heading = Pattern.compile(heading);
    this.aboutOne = aboutOne;
    this.across = across;
  }

  /**
   * The role of a section by its heading; empty for headings no role claims (and for none). A
   * nested heading ("Experiments ::: Datasets ::: SQuAD") takes the role of its innermost part
   * that has one: "SQuAD" is part of the data section, "Experimental Setup ::: Datasets" is data
   * rather than setup.
   */
  public static Optional<SectionRole> of(String heading) {
    String[] path = (heading == null ? "" : heading).split(Paper.NESTING_MARK);
    for (int i = path.length - 1; i >= 0; i--) {
      Optional<SectionRole> role = ofOne(path[i]);
      if (role.isPresent()) return role;
    }
    return Optional.empty();
  }

  private static Optional<SectionRole> ofOne(String heading) {
    String h = heading.toLowerCase(Locale.ROOT).replaceAll("^[\\d.\\s]+", "").strip();
    if (h.isEmpty()) return Optional.empty();
    for (SectionRole role : values()) if (role.heading.matcher(h).matches()) return Optional.of(role);
    return Optional.empty();
  }

  /** The question about one paper's section of this role; names the paper, so it is scoped to it. */
  public String aboutOne(String title) {
    return String.format(aboutOne, title.strip());
  }

  /**
   * The question about every paper of a group that has a section of this role. It names the
   * group by its seed paper, so that two groups never ask the same question.
   */
  public String across(String seedTitle) {
    return "Among the papers grouped with \"" + seedTitle.strip() + "\", some give a section of its own to " + across
        + ": what does each of them report there?";
  }
}
