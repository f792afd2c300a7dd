package arbor.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Clean text from a LaTeX or Sweave ({@code .Rnw}) source: title, abstract and body paragraphs.
 * Code chunks, display math, figures, tables and bibliographies are dropped; formatting commands
 * keep their text ({@code \pkg{TSP}} is {@code TSP}); citations and references disappear. The
 * result is what the paper says in words, which is what evidence is made of.
 */
public final class LatexSource {
  private LatexSource() {}

  /** Title, abstract and the body's paragraphs, each with the heading it sits under ({@code ""} before the first). */
  public record Text(String title, String abstractText, List<String> paragraphs, List<String> sections) {}

  /** Marks a heading's own block, so that paragraphs() knows which heading each paragraph follows. */
  private static final char HEADING_MARK = '\u0001';

  private static final Set<String> DROPPED_ENVIRONMENTS = Set.of(
      "figure", "figure*", "table", "table*", "equation", "equation*", "align", "align*",
      "eqnarray", "eqnarray*", "gather", "gather*", "multline", "multline*", "displaymath",
      "verbatim", "Verbatim", "Code", "CodeChunk", "CodeInput", "CodeOutput", "Sinput",
      "Soutput", "Schunk", "lstlisting", "tabular", "thebibliography", "tikzpicture", "comment");
  private static final Set<String> TEXT_COMMANDS = Set.of(
      "emph", "textbf", "textit", "texttt", "textsf", "textrm", "textsc", "textsl", "underline",
      "pkg", "proglang", "code", "fct", "class", "func", "samp", "mbox", "hbox", "text",
      "textnormal", "strong", "dfn", "file", "email", "url", "software", "fbox", "emph*",
      "textup", "mathrm", "mathit", "mathbf", "mathsf", "mathtt", "operatorname", "var");
  private static final Set<String> HEADING_COMMANDS = Set.of(
      "section", "section*", "subsection", "subsection*", "subsubsection", "subsubsection*",
      "paragraph", "paragraph*", "chapter", "chapter*", "part", "appendix");
  private static final Map<String, String> SYMBOLS = Map.ofEntries(
      Map.entry("alpha", "α"), Map.entry("beta", "β"), Map.entry("gamma", "γ"),
      Map.entry("delta", "δ"), Map.entry("epsilon", "ε"), Map.entry("varepsilon", "ε"),
      Map.entry("theta", "θ"), Map.entry("lambda", "λ"), Map.entry("mu", "μ"),
      Map.entry("pi", "π"), Map.entry("rho", "ρ"), Map.entry("sigma", "σ"), Map.entry("tau", "τ"),
      Map.entry("phi", "φ"), Map.entry("psi", "ψ"), Map.entry("omega", "ω"),
      Map.entry("Sigma", "Σ"), Map.entry("Omega", "Ω"), Map.entry("Delta", "Δ"),
      Map.entry("le", "≤"), Map.entry("leq", "≤"), Map.entry("ge", "≥"), Map.entry("geq", "≥"),
      Map.entry("times", "×"), Map.entry("cdot", "·"), Map.entry("infty", "∞"),
      Map.entry("sum", "∑"), Map.entry("in", "∈"), Map.entry("neq", "≠"), Map.entry("ne", "≠"),
      Map.entry("approx", "≈"), Map.entry("pm", "±"), Map.entry("ldots", "..."),
      Map.entry("dots", "..."), Map.entry("cdots", "..."), Map.entry("LaTeX", "LaTeX"),
      Map.entry("TeX", "TeX"), Map.entry("R", "R"), Map.entry("S", "S"), Map.entry("ss", "ß"),
      Map.entry("textendash", "–"), Map.entry("textemdash", "—"), Map.entry("dag", "†"));
  private static final Map<Character, Map<Character, String>> ACCENTS = Map.of(
      '"', Map.of('a', "ä", 'o', "ö", 'u', "ü", 'A', "Ä", 'O', "Ö", 'U', "Ü", 'e', "ë", 'i', "ï"),
      '\'', Map.of('a', "á", 'e', "é", 'i', "í", 'o', "ó", 'u', "ú", 'E', "É", 'c', "ć"),
      '`', Map.of('a', "à", 'e', "è", 'i', "ì", 'o', "ò", 'u', "ù"),
      '^', Map.of('a', "â", 'e', "ê", 'i', "î", 'o', "ô", 'u', "û"),
      '~', Map.of('n', "ñ", 'a', "ã", 'o', "õ"));

  private static final Pattern COMMENT = Pattern.compile("(?<!\\\\)%.*");
  private static final Pattern SWEAVE_CHUNK = Pattern.compile("(?ms)^<<[^\\n]*>>=.*?^@");
  private static final Pattern SEXPR = Pattern.compile("\\\\Sexpr\\{[^}]*}");
  private static final Pattern DISPLAY_MATH = Pattern.compile("(?s)\\\\\\[.*?\\\\]|\\$\\$.*?\\$\\$");
  private static final Pattern BLANK_LINES = Pattern.compile("\\n\\s*\\n");

  public static Text parse(String source) {
    String s = COMMENT.matcher(source.replace("\r\n", "\n")).replaceAll("");
    s = SWEAVE_CHUNK.matcher(s).replaceAll("\n\n");
    s = SEXPR.matcher(s).replaceAll("");
    String title = inline(argumentOf(s, "title"));
    String abstractText = argumentOf(s, "Abstract");
    if (abstractText.isEmpty()) abstractText = environment(s, "abstract");
    int begin = s.indexOf("\\begin{document}");
    String body = begin >= 0 ? s.substring(begin + "\\begin{document}".length()) : s;
    int end = firstOf(body, "\\end{document}", "\\bibliography{", "\\begin{thebibliography}");
    if (end >= 0) body = body.substring(0, end);
    String abstractBlock = environmentBlock(body, "abstract");
    if (!abstractBlock.isEmpty()) body = body.replace(abstractBlock, "\n\n");
    List<String> paragraphs = new ArrayList<>();
    List<String> sections = new ArrayList<>();
    paragraphs(body, paragraphs, sections);
    return new Text(title, inline(abstractText), paragraphs, sections);
  }

  private static void paragraphs(String body, List<String> out, List<String> sections) {
    String s = dropEnvironments(body);
    s = DISPLAY_MATH.matcher(s).replaceAll(" ");
    s = breakAtHeadings(s);
    String section = "";
    for (String block : BLANK_LINES.split(s)) {
      String b = block.strip();
      if (!b.isEmpty() && b.charAt(0) == HEADING_MARK) {
        section = inline(b.substring(1)).strip();
        continue;
      }
      String text = inline(block);
      if (text.length() >= 40 && CleanText.letterRatio(text) > 0.6) {
        out.add(text);
        sections.add(section);
      }
    }
  }

  private static String dropEnvironments(String s) {
    StringBuilder out = new StringBuilder();
    Matcher m = Pattern.compile("\\\\begin\\{([^}]+)}").matcher(s);
    int at = 0;
    while (m.find(at)) {
      String name = m.group(1);
      if (!DROPPED_ENVIRONMENTS.contains(name)) {
        out.append(s, at, m.end());
        at = m.end();
        continue;
      }
      out.append(s, at, m.start()).append("\n\n");
      int close = s.indexOf("\\end{" + name + "}", m.end());
      at = close < 0 ? s.length() : close + ("\\end{" + name + "}").length();
    }
    return out.append(s.substring(at)).toString();
  }

  private static String breakAtHeadings(String s) {
    StringBuilder out = new StringBuilder();
    Matcher m = Pattern.compile("\\\\([a-zA-Z]+\\*?)").matcher(s);
    int at = 0;
    while (m.find(at)) {
      if (!HEADING_COMMANDS.contains(m.group(1))) {
        out.append(s, at, m.end());
        at = m.end();
        continue;
      }
      out.append(s, at, m.start()).append("\n\n");
      int after = skipOptional(s, m.end());
      at = after < s.length() && s.charAt(after) == '{' ? matchingBrace(s, after) + 1 : after;
      if (at > after) out.append(HEADING_MARK).append(s.substring(after + 1, at - 1).replace('\n', ' ')).append(' ');
      out.append("\n\n");
    }
    return out.append(s.substring(at)).toString();
  }

  /** Renders inline LaTeX as plain text. */
  static String inline(String latex) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < latex.length()) {
      char c = latex.charAt(i);
      if (c == '\\') {
        i = command(latex, i, out);
      } else if (c == '{' || c == '}' || c == '$') {
        i++;
      } else if (c == '~') {
        out.append(' ');
        i++;
      } else if ((c == '^' || c == '_') && inMath(latex, i)) {
        i++;
      } else if (latex.startsWith("---", i)) {
        out.append('—');
        i += 3;
      } else if (latex.startsWith("--", i)) {
        out.append('–');
        i += 2;
      } else if (latex.startsWith("``", i) || latex.startsWith("''", i)) {
        out.append('"');
        i += 2;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString().replaceAll("\\s+", " ").replaceAll(" ([.,;:)])", "$1").replace("( ", "(").strip();
  }

  private static boolean inMath(String s, int i) {
    int dollars = 0;
    for (int k = 0; k < i; k++) if (s.charAt(k) == '$' && (k == 0 || s.charAt(k - 1) != '\\')) dollars++;
    return dollars % 2 == 1;
  }

  /** Renders the command at {@code i} into {@code out}; returns the index after it. */
  private static int command(String s, int i, StringBuilder out) {
    if (i + 1 >= s.length()) return i + 1;
    char next = s.charAt(i + 1);
    if (ACCENTS.containsKey(next) && i + 2 < s.length()) {
      int letterAt = s.charAt(i + 2) == '{' ? i + 3 : i + 2;
      if (letterAt < s.length()) {
        String accented = ACCENTS.get(next).get(s.charAt(letterAt));
        out.append(accented != null ? accented : String.valueOf(s.charAt(letterAt)));
        int after = letterAt + 1;
        return s.charAt(i + 2) == '{' && after < s.length() && s.charAt(after) == '}' ? after + 1 : after;
      }
    }
    if (!Character.isLetter(next)) {
      if (next == '\\') out.append(' ');
      else if ("%&$#_{}".indexOf(next) >= 0) out.append(next);
      else if (next == ',' || next == ' ' || next == ';') out.append(' ');
      return i + 2;
    }
    int end = i + 1;
    while (end < s.length() && Character.isLetter(s.charAt(end))) end++;
    String name = s.substring(i + 1, end);
    if (end < s.length() && s.charAt(end) == '*') end++;
    int after = skipOptional(s, end);
    boolean hasArgument = after < s.length() && s.charAt(after) == '{';
    if (TEXT_COMMANDS.contains(name) && hasArgument) {
      int close = matchingBrace(s, after);
      out.append(inline(s.substring(after + 1, close)));
      return close + 1;
    }
    if (SYMBOLS.containsKey(name)) {
      out.append(SYMBOLS.get(name));
      return end;
    }
    if (hasArgument && !name.equals("item")) {
      // Citations, references, labels, footnote marks, spacing: their argument is not prose.
      return matchingBrace(s, after) + 1;
    }
    return end;
  }

  /** Skips optional arguments ({@code \\citep[see][p. 3]{key}} has two). */
  private static int skipOptional(String s, int i) {
    while (i < s.length() && s.charAt(i) == '[') {
      int close = s.indexOf(']', i);
      if (close < 0) return s.length();
      i = close + 1;
    }
    return i;
  }

  private static int matchingBrace(String s, int open) {
    int depth = 0;
    for (int k = open; k < s.length(); k++) {
      char c = s.charAt(k);
      if (c == '\\') { k++; continue; }
      if (c == '{') depth++;
      else if (c == '}' && --depth == 0) return k;
    }
    return s.length() - 1;
  }

  /** The brace-balanced argument of the first {@code \name{...}}, or "". */
  private static String argumentOf(String s, String name) {
    Matcher m = Pattern.compile("\\\\" + name + "\\s*(\\[[^]]*])?\\s*\\{").matcher(s);
    if (!m.find()) return "";
    int open = m.end() - 1;
    return s.substring(open + 1, matchingBrace(s, open));
  }

  private static String environment(String s, String name) {
    String block = environmentBlock(s, name);
    if (block.isEmpty()) return "";
    return block.substring(("\\begin{" + name + "}").length(), block.length() - ("\\end{" + name + "}").length());
  }

  private static String environmentBlock(String s, String name) {
    int begin = s.indexOf("\\begin{" + name + "}");
    int end = begin < 0 ? -1 : s.indexOf("\\end{" + name + "}", begin);
    return end < 0 ? "" : s.substring(begin, end + ("\\end{" + name + "}").length());
  }

  private static int firstOf(String s, String... needles) {
    int best = -1;
    for (String n : needles) {
      int at = s.indexOf(n);
      if (at >= 0 && (best < 0 || at < best)) best = at;
    }
    return best;
  }
}
