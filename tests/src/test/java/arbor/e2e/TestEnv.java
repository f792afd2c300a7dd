package arbor.e2e;

import arbor.jobs.conf.ConfigLoader;
import arbor.jobs.setup.CorpusFetcher;
import arbor.pipelines.spark.Sessions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Assumptions;

/**
 * What the end-to-end tests share: one local SparkSession per test JVM (jobs run in-process
 * borrow it), the repository root, and a small real corpus of R-package papers fetched once.
 * Every test in this module takes its session from here: Spark keeps one context per JVM, and a
 * session opened elsewhere first (plain {@code local[2]}) would leave the retry tests without
 * their second task attempt.
 */
public final class TestEnv {
  private TestEnv() {}

  public static final Path REPO = Path.of(System.getProperty("arbor.repo", "..")).toAbsolutePath().normalize();
  public static final Path WORK = REPO.resolve("target/test-data");
  static final List<String> REAL_PACKAGES = List.of("r-cran-tsp", "r-cran-dbscan", "r-cran-sandwich");

  /**
   * The session's settings; a job started in a JVM of its own gets them too (with a local dir of
   * its own), so that it plans and computes as the in-process jobs it is compared with.
   */
  static final List<String> SPARK_SETTINGS = List.of(
      "spark.master=local[2,2]", "spark.shuffle_partitions=2", "spark.local_dir=" + WORK.resolve("spark"),
      // Expressions evaluated without generated code: the same operators and results, and
      // on these tests' few rows no Janino compile per query (measured: RefreshEndToEndTest
      // 106 s -> 75 s on an idle 2-core machine). The jobs keep Spark's default.
      "spark.extra.\"spark.sql.codegen.wholeStage\"=false",
      "spark.extra.\"spark.sql.codegen.factoryMode\"=NO_CODEGEN");

  private static SparkSession spark;

  public static synchronized SparkSession spark() {
    if (spark == null) {
      spark = Sessions.open(ConfigLoader.load(List.of(), SPARK_SETTINGS).spark());
    }
    return spark;
  }

  /** The real corpus, fetched with the setup job's fetcher; the test is skipped without apt-get. */
  static synchronized Path realCorpus() throws Exception {
    Path data = WORK.resolve("data");
    Files.createDirectories(data);
    // Test classes run in two JVMs at once (surefire forkCount): one fetches, the other waits.
    try (var lock = java.nio.channels.FileChannel.open(data.resolve(".fetch.lock"),
        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE); var held = lock.lock()) {
      return fetchRealCorpus(data);
    }
  }

  private static Path fetchRealCorpus(Path data) throws Exception {
    CorpusFetcher fetcher = new CorpusFetcher(data, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    boolean present = REAL_PACKAGES.stream().allMatch(p -> Files.exists(fetcher.corpus().resolve(p).resolve(".complete")));
    if (!present) {
      Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/apt-get")),
          "apt-get is absent: the real R-package PDFs cannot be fetched, test skipped");
      CorpusFetcher.Result result = fetcher.fetch(REAL_PACKAGES);
      if (!result.failed().isEmpty()) throw new IllegalStateException("could not fetch " + result.failed());
    }
    return fetcher.corpus();
  }

  /** The shared QASPER sample: {@code ../shared/data/qasper-train} beside the checkout, or where {@code -Darbor.qasper} says (a worktree elsewhere). */
  private static final Path QASPER = Path.of(System.getProperty("arbor.qasper", REPO.resolve("../shared/data/qasper-train").toString())).normalize();

  /** The shared QASPER sample, or a skipped test that says where it looked. */
  static Path qasper() {
    Assumptions.assumeTrue(qasperOrNull() != null, "shared QASPER data absent at " + QASPER + ": test skipped");
    return QASPER;
  }

  /** The shared QASPER sample, or null (with a note on the console) where it is absent. */
  static Path qasperOrNull() {
    if (Files.isDirectory(QASPER.resolve("papers"))) return QASPER;
    System.out.println("shared QASPER data absent at " + QASPER + ": using generated stand-ins");
    return null;
  }

  /** Whether a Parquet file (a finished one or one a task is writing) lies anywhere under {@code dir}. */
  static boolean hasParquet(Path dir) throws java.io.IOException {
    if (!Files.isDirectory(dir)) return false;
    try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
      return files.anyMatch(f -> f.getFileName().toString().endsWith(".parquet"));
    } catch (java.io.UncheckedIOException e) {
      return false; // a task's folder moved as we walked: the next poll sees it
    }
  }

  /** Runs a job in-process; returns its exit code and what it printed. */
  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    spark();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = arbor.jobs.Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
