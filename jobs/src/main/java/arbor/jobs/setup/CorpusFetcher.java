package arbor.jobs.setup;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import arbor.jobs.cli.FileTrees;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Fetches the demo corpus: the vignettes (real papers from the Journal of Statistical Software
 * and the R Journal, as PDF with their LaTeX/Sweave sources) inside Debian's {@code r-cran-*}
 * packages, with {@code apt-get download} and {@code dpkg-deb -x}: no root, nothing installed.
 * Each package lands in {@code <corpus>/<package>/}; a package already there is not fetched
 * again.
 */
public final class CorpusFetcher {
  private static final String DONE = ".complete";

  private final Path corpus;
  private final Path downloads;
  private final PrintStream out;

  public CorpusFetcher(Path dataDir, PrintStream out) {
    this.corpus = dataDir.resolve("corpus");
    this.downloads = dataDir.resolve("downloads");
    this.out = out;
  }

  public Path corpus() {
    return corpus;
  }

  /** What happened to each package. */
  public record Result(List<String> fetched, List<String> cached, List<String> failed) {}

  public Result fetch(List<String> packages) throws IOException {
    List<String> fetched = new ArrayList<>();
    List<String> cached = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    boolean toolsChecked = false;
    for (String pkg : packages) {
      Path target = corpus.resolve(pkg);
      if (Files.exists(target.resolve(DONE))) {
        cached.add(pkg);
        continue;
      }
      if (!toolsChecked) {
        requireTools();
        toolsChecked = true;
      }
      try {
        int papers = fetchOne(pkg, target);
        out.printf("setup: %-22s %d paper(s)%n", pkg, papers);
        fetched.add(pkg);
      } catch (IOException e) {
        out.println("setup: " + pkg + " FAILED: " + e.getMessage());
        failed.add(pkg);
      }
    }
    return new Result(fetched, cached, failed);
  }

  private void requireTools() throws IOException {
    for (String tool : List.of("apt-get", "dpkg-deb")) {
      if (Commands.find(tool).isEmpty()) {
        throw new IOException(tool + " not found: setup fetches the demo corpus from Debian packages, "
            + "so it needs a Debian or Ubuntu machine. Use your own papers instead: "
            + "bin/arbor ingest --papers /path/to/pdfs (PDFs, with .tex/.Rnw sources beside them when you have them)");
      }
    }
  }

  private int fetchOne(String pkg, Path target) throws IOException {
    Path debDir = downloads.resolve("debs");
    Files.createDirectories(debDir);
    Commands.run(debDir, List.of("apt-get", "download", pkg));
    Path deb;
    try (Stream<Path> s = Files.list(debDir)) {
      deb = s.filter(p -> p.getFileName().toString().startsWith(pkg + "_") && p.toString().endsWith(".deb"))
          .max(Comparator.comparing(Path::toString))
          .orElseThrow(() -> new IOException("apt-get download " + pkg + " left no .deb file in " + debDir));
    }
    Path unpacked = downloads.resolve("unpacked").resolve(pkg);
    FileTrees.delete(unpacked);
    Files.createDirectories(unpacked);
    Commands.run(downloads, List.of("dpkg-deb", "-x", deb.toString(), unpacked.toString()));
    FileTrees.delete(target);
    Files.createDirectories(target);
    int papers = 0;
    try (Stream<Path> files = Files.walk(unpacked)) {
      for (Path f : files.filter(Files::isRegularFile).filter(CorpusFetcher::isPaperFile).toList()) {
        if (!f.getParent().getFileName().toString().equals("doc")) continue;
        Files.copy(f, target.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        if (f.toString().toLowerCase(Locale.ROOT).endsWith(".pdf")) papers++;
      }
    }
    FileTrees.delete(unpacked);
    if (papers == 0) throw new IOException("the package holds no PDF vignette");
    Files.writeString(target.resolve(DONE), deb.getFileName().toString() + "\n");
    return papers;
  }

  private static boolean isPaperFile(Path f) {
    String name = f.getFileName().toString().toLowerCase(Locale.ROOT);
    return name.endsWith(".pdf") || name.endsWith(".rnw") || name.endsWith(".tex");
  }
}
