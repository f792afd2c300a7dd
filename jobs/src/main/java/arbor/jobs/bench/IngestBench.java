package arbor.jobs.bench;

import arbor.jobs.FileTrees;
import arbor.jobs.JobContext;
import arbor.jobs.ingest.IngestJob;
import arbor.jobs.setup.SetupJob;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    return "Spark ingest vs a single-threaded PDFBox loop, pages/s over the demo corpus";
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    PrintStream out = ctx.out();
    if (SetupJob.setup(ctx.job(), ctx.config().setup().packages(), false) != 0) {
      throw new IOException("no demo corpus: bin/arbor setup could not fetch it");
    }
    Path corpus = Path.of(ctx.config().dataDir(), "corpus").toAbsolutePath();
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

    Path scratch = Files.createTempDirectory(Path.of(ctx.config().dataDir()).toAbsolutePath(), "bench-warehouse");
    try {
      // A first, full run into one scratch warehouse starts Spark and Delta and warms the JIT;
      // the second, into a fresh warehouse, is measured: a complete first-time ingest.
      try (JobContext warmUp = scratchJob(ctx, scratch.resolve("warm-up"))) {
        IngestJob.ingest(warmUp, List.of(corpus.toString()));
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
    } finally {
      FileTrees.delete(scratch);
    }
  }

  /** The bench's own context, writing to a scratch warehouse; it borrows the bench's SparkSession. */
  private static JobContext scratchJob(BenchContext ctx, Path warehouse) {
    var config = ctx.config().withWarehouse(warehouse.toString());
    ctx.spark();
    return new JobContext("bench", config, List.of(), ctx.out());
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
