package arbor.jobs.bench;

import arbor.jobs.cli.Args;
import arbor.jobs.cli.FileTrees;
import arbor.jobs.cli.JobContext;
import arbor.jobs.ingest.IngestJob;
import arbor.jobs.setup.SetupJob;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.text.PDFTextStripper;

/**
 * Pages per second of the Spark ingest job (parse on the executors, MERGE into a scratch
 * warehouse) against a plain single-threaded PDFBox loop extracting the text of the same PDFs,
 * in the same JVM and run. The corpus is the demo corpus ({@code setup} runs first if needed).
 */
final class IngestBench implements Benchmark {

  @Override
  public String summary() {
    return "Spark ingest vs a single-threaded PDFBox loop, pages/s over the demo corpus (--copies N, default 4)";
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    PrintStream out = ctx.out();
    if (SetupJob.setup(ctx.job(), ctx.config().setup().packages(), false) != 0) {
      throw new IOException("no demo corpus: bin/arbor setup could not fetch it");
    }
    Args args = Args.parse("bench ingest", ctx.args(), Set.of(), Set.of("copies"));
    int copies = Integer.parseInt(args.value("copies").orElse("4"));
    Path scratch = Files.createTempDirectory(Path.of(ctx.config().dataDir()).toAbsolutePath(), "bench-ingest");
    try {
      return measure(ctx, replicate(Path.of(ctx.config().dataDir(), "corpus").toAbsolutePath(), scratch.resolve("input"), copies),
          scratch);
    } finally {
      FileTrees.delete(scratch);
    }
  }

  /**
   * The corpus copied {@code copies} times into {@code input/copy-<i>/}, so that the run is long
   * enough for Spark's fixed costs to matter less; each copy's papers have their own ids.
   */
  private static Path replicate(Path corpus, Path input, int copies) throws IOException {
    try (Stream<Path> s = Files.walk(corpus)) {
      List<Path> files = s.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().startsWith(".")).toList();
      for (int i = 1; i <= copies; i++) {
        for (Path f : files) {
          Path target = input.resolve("copy-" + i).resolve(corpus.relativize(f).toString());
          Files.createDirectories(target.getParent());
          Files.copy(f, target);
        }
      }
    }
    return input;
  }

  private Map<String, Object> measure(BenchContext ctx, Path corpus, Path scratch) throws Exception {
    PrintStream out = ctx.out();
    List<Path> pdfs;
    try (Stream<Path> s = Files.walk(corpus)) {
      pdfs = s.filter(p -> p.toString().endsWith(".pdf")).sorted().toList();
    }
    out.printf("bench ingest: %d PDFs under %s, %d cores%n", pdfs.size(), corpus, Runtime.getRuntime().availableProcessors());

    singleThreaded(pdfs); // warm-up: class loading and JIT, so both sides are measured warm
    long t0 = System.nanoTime();
    long pages = singleThreaded(pdfs);
    double baselineSeconds = (System.nanoTime() - t0) / 1e9;
    out.printf("bench ingest: single-threaded PDFBox: %d pages in %.2f s (%.1f pages/s)%n", pages, baselineSeconds, pages / baselineSeconds);

    // A first run over one copy starts Spark and Delta and warms the JIT; the second, over all
    // copies into a fresh warehouse, is measured: a complete first-time ingest.
    try (JobContext warmUp = scratchJob(ctx, scratch.resolve("warm-up"))) {
      IngestJob.ingest(warmUp, List.of(corpus.resolve("copy-1").toString()));
    }
    try (JobContext job = scratchJob(ctx, scratch.resolve("measured"))) {
      long t1 = System.nanoTime();
      IngestJob.Summary summary = IngestJob.ingest(job, List.of(corpus.toString()));
      double sparkSeconds = (System.nanoTime() - t1) / 1e9;
      out.printf("bench ingest: Spark ingest: %d papers, %d pages in %.2f s (%.1f pages/s): parse %.2f s, Delta writes %.2f s%n",
          summary.papers(), pages, sparkSeconds, pages / sparkSeconds, summary.parseSeconds(), summary.writeSeconds());
      Map<String, Object> figures = new LinkedHashMap<>();
      figures.put("pdfs", pdfs.size());
      figures.put("pages", pages);
      figures.put("cores", Runtime.getRuntime().availableProcessors());
      figures.put("single_thread_pages_per_s", round(pages / baselineSeconds));
      figures.put("spark_pages_per_s", round(pages / sparkSeconds));
      figures.put("spark_parse_pages_per_s", round(pages / summary.parseSeconds()));
      figures.put("speedup_vs_single_thread", round(baselineSeconds / sparkSeconds));
      figures.put("parse_speedup_vs_single_thread", round(baselineSeconds / summary.parseSeconds()));
      return figures;
    }
  }

  /** The bench's own context, writing to a scratch warehouse; it borrows the bench's SparkSession. */
  private static JobContext scratchJob(BenchContext ctx, Path warehouse) {
    ctx.spark();
    return new JobContext("bench", ctx.config().withWarehouse(warehouse.toString()), List.of(), ctx.out());
  }

  private static long singleThreaded(List<Path> pdfs) throws IOException {
    long pages = 0;
    for (Path pdf : pdfs) {
      try (PDDocument doc = Loader.loadPDF(pdf.toFile())) {
        new PDFTextStripper().getText(doc);
        pages += doc.getNumberOfPages();
      }
    }
    return pages;
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }
}
