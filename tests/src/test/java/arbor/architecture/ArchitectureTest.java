package arbor.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import arbor.architecture.SourceMap.Arrow;
import arbor.architecture.SourceMap.SourceFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The map of docs/architecture.md ("The map"), held against the imports of the main sources: the
 * modules point down (jobs over pipelines over udfs), each package lives in one module, udfs'
 * folders are layers whose arrows point down only, and no group of packages names each other
 * in a loop. A failure names the arrow and a file that draws it.
 */
class ArchitectureTest {
  static final Path REPO = Path.of(System.getProperty("arbor.repo", ".."));
  static final List<String> MODULES = List.of("udfs", "pipelines", "jobs");

  /** udfs' folders (arbor.<folder>), lowest first: a folder may name itself and those before it. */
  static final List<String> UDFS_FOLDERS = List.of("text", "conf", "tables", "progress", "llm", "inputs", "policy",
      "ingest", "advantages", "rlm", "synthesis", "judge");

  @Test
  void theSourcesFollowTheMap() {
    SourceMap map = SourceMap.read(REPO, MODULES);
    List<Arrow> arrows = map.arrows();
    List<String> misplaced = misplaced(map);
    List<String> split = splitPackages(map);
    List<String> climbing = climbing(arrows);
    List<Set<String>> loops = SourceMap.loops(arrows);
    System.out.printf("architecture: %d files, %d packages, %d arrows; %d misplaced, %d split packages,"
        + " %d arrows climbing back up, %d loops%n", map.files().size(), map.modulesByPackage().size(), arrows.size(),
        misplaced.size(), split.size(), climbing.size(), loops.size());
    assertEquals(List.of(), misplaced, "packages outside their module's part of the map");
    assertEquals(List.of(), split, "packages with files in two modules");
    assertEquals(List.of(), climbing, "arrows that climb back up");
    assertEquals(List.of(), loops, "packages that name each other in a loop");
  }

  /** The checks themselves, on sources made to break each rule: a map test that cannot fail proves nothing. */
  @Test
  void eachRuleCatchesTheSourceThatBreaksIt() {
    SourceFile settings = SourceMap.parse("udfs", Path.of("A.java"), """
        package arbor.conf;
        import arbor.rlm.Prompts; // arbor.judge.Verdict in a comment is no arrow
        /** Neither is {@link arbor.synthesis.Query} in javadoc. */
        record A(String name) { static final String S = "arbor.jobs.Main"; }
        """);
    assertEquals(Set.of("arbor.rlm"), settings.uses());
    SourceFile runtime = SourceMap.parse("udfs", Path.of("B.java"), """
        package arbor.rlm;
        class B { arbor.conf.RlmSettings s; arbor.pipelines.judge.Judge j; }
        """);
    SourceFile stage = SourceMap.parse("pipelines", Path.of("C.java"), "package arbor.conf;\nclass C {}\n");
    SourceMap broken = new SourceMap(List.of(settings, runtime, stage));

    assertEquals(List.of("arbor.conf -> arbor.rlm (A.java)"), climbing(broken.arrows()));
    assertEquals(List.of(Set.of("arbor.conf", "arbor.rlm")), SourceMap.loops(broken.arrows()));
    assertEquals(List.of("arbor.conf in [pipelines, udfs]"), splitPackages(broken));
    assertEquals(List.of("arbor.rlm (udfs) names arbor.pipelines.judge (B.java)", "arbor.conf (pipelines) is not under arbor.pipelines"),
        misplaced(broken));
  }

  /** Arrows between udfs folders that point up the layer list. */
  static List<String> climbing(List<Arrow> arrows) {
    List<String> out = new ArrayList<>();
    for (Arrow a : arrows) {
      int from = UDFS_FOLDERS.indexOf(folder(a.from()));
      int to = UDFS_FOLDERS.indexOf(folder(a.to()));
      if (from >= 0 && to > from) out.add(a.from() + " -> " + a.to() + " (" + a.example() + ")");
    }
    return out;
  }

  static List<String> splitPackages(SourceMap map) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, Set<String>> e : map.modulesByPackage().entrySet()) {
      if (e.getValue().size() > 1) out.add(e.getKey() + " in " + e.getValue());
    }
    return out;
  }

  /**
   * Files outside their module's part of the map: udfs is arbor.<one of its folders>, pipelines
   * arbor.pipelines, jobs arbor.jobs and the notebooks' arbor.notebook; udfs names neither of the
   * modules above it, pipelines not jobs.
   */
  static List<String> misplaced(SourceMap map) {
    List<String> out = new ArrayList<>();
    for (SourceFile f : map.files()) {
      boolean home = switch (f.module()) {
        case "udfs" -> UDFS_FOLDERS.contains(folder(f.pkg()));
        case "pipelines" -> under(f.pkg(), "arbor.pipelines");
        default -> under(f.pkg(), "arbor.jobs") || under(f.pkg(), "arbor.notebook");
      };
      String where = f.module().equals("udfs") ? "arbor.<" + String.join("|", UDFS_FOLDERS) + ">"
          : f.module().equals("pipelines") ? "arbor.pipelines" : "arbor.jobs or arbor.notebook";
      for (String use : f.uses()) {
        boolean above = (!f.module().equals("jobs") && (under(use, "arbor.jobs") || under(use, "arbor.notebook")))
            || (f.module().equals("udfs") && under(use, "arbor.pipelines"));
        if (above) out.add(f.pkg() + " (" + f.module() + ") names " + use + " (" + f.path() + ")");
      }
      if (!home) out.add(f.pkg() + " (" + f.module() + ") is not under " + where);
    }
    return out.stream().distinct().toList();
  }

  private static String folder(String pkg) {
    String[] parts = pkg.split("\\.");
    return parts.length > 1 ? parts[1] : "";
  }

  private static boolean under(String pkg, String root) {
    return pkg.equals(root) || pkg.startsWith(root + ".");
  }
}
