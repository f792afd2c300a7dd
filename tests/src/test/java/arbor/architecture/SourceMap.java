package arbor.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which Arbor packages each main source file lives in and refers to, read from the text of the
 * sources (imports, static imports and qualified names in code; comments and string literals
 * left out). A reference by simple name within one package crosses no package line, so it is
 * not needed here.
 */
record SourceMap(List<SourceFile> files) {

  /** One file: its module, its package and the Arbor packages its code names. */
  record SourceFile(String module, Path path, String pkg, Set<String> uses) {}

  /** An arrow from one package to another, with a file that draws it (for the failure message). */
  record Arrow(String from, String to, Path example) {}

  private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
  private static final Pattern QUALIFIED = Pattern.compile("\\b(arbor(?:\\.[a-z_][a-z0-9_]*)+)\\.[A-Z]");
  private static final Pattern NOISE = Pattern.compile(
      "/\\*.*?\\*/|//[^\\n]*+|\"\"\".*?\"\"\"|\"(?:[^\"\\\\\\n]|\\\\.)*+\"|'(?:[^'\\\\]|\\\\.)'", Pattern.DOTALL);

  static SourceMap read(Path repo, List<String> modules) {
    List<SourceFile> files = new ArrayList<>();
    for (String module : modules) {
      Path root = repo.resolve(module).resolve("src/main/java");
      if (!Files.isDirectory(root)) throw new IllegalStateException("no sources at " + root.toAbsolutePath());
      try (Stream<Path> walk = Files.walk(root)) {
        for (Path p : walk.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
          files.add(parse(module, p, Files.readString(p)));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new SourceMap(files);
  }

  static SourceFile parse(String module, Path path, String source) {
    Matcher pkg = PACKAGE.matcher(source);
    if (!pkg.find()) throw new IllegalStateException(path + ": no package line");
    String code = NOISE.matcher(source).replaceAll(" ");
    Set<String> uses = new TreeSet<>();
    Matcher m = QUALIFIED.matcher(code);
    while (m.find()) {
      if (!m.group(1).equals(pkg.group(1))) uses.add(m.group(1));
    }
    return new SourceFile(module, path, pkg.group(1), uses);
  }

  /** Each package with the modules it has files in. */
  Map<String, Set<String>> modulesByPackage() {
    Map<String, Set<String>> out = new TreeMap<>();
    for (SourceFile f : files) out.computeIfAbsent(f.pkg(), k -> new TreeSet<>()).add(f.module());
    return out;
  }

  /** Every package-to-package arrow once, each with the first file that draws it. */
  List<Arrow> arrows() {
    Map<String, Arrow> out = new TreeMap<>();
    for (SourceFile f : files) {
      for (String to : f.uses()) out.putIfAbsent(f.pkg() + " -> " + to, new Arrow(f.pkg(), to, f.path()));
    }
    return List.copyOf(out.values());
  }

  /** The groups of packages that reach each other through arrows (Tarjan's components of size > 1). */
  static List<Set<String>> loops(List<Arrow> arrows) {
    Map<String, List<String>> next = new HashMap<>();
    for (Arrow a : arrows) next.computeIfAbsent(a.from(), k -> new ArrayList<>()).add(a.to());
    return new Tarjan(next).components().stream().filter(c -> c.size() > 1).toList();
  }

  private static final class Tarjan {
    private final Map<String, List<String>> next;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<String, Integer> low = new HashMap<>();
    private final List<String> stack = new ArrayList<>();
    private final Set<String> onStack = new TreeSet<>();
    private final List<Set<String>> out = new ArrayList<>();

    Tarjan(Map<String, List<String>> next) {
      this.next = next;
    }

    List<Set<String>> components() {
      for (String v : new TreeSet<>(next.keySet())) if (!index.containsKey(v)) visit(v);
      return out;
    }

    private void visit(String v) {
      index.put(v, index.size());
      low.put(v, index.get(v));
      stack.add(v);
      onStack.add(v);
      for (String w : next.getOrDefault(v, List.of())) {
        if (!index.containsKey(w)) {
          visit(w);
          low.put(v, Math.min(low.get(v), low.get(w)));
        } else if (onStack.contains(w)) {
          low.put(v, Math.min(low.get(v), index.get(w)));
        }
      }
      if (low.get(v).equals(index.get(v))) {
        Set<String> component = new TreeSet<>();
        String w;
        do {
          w = stack.removeLast();
          onStack.remove(w);
          component.add(w);
        } while (!w.equals(v));
        out.add(component);
      }
    }
  }
}
