package arbor.e2e;

import static org.junit.jupiter.api.Assertions.*;

import arbor.jobs.setup.CorpusFetcher;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class SetupTest {

  @Test
  void aSecondFetchDownloadsNothingAndTheCorpusHoldsPapersWithTheirSources() throws Exception {
    Path corpus = TestEnv.realCorpus();
    Path debs = corpus.getParent().resolve("downloads/debs");
    long debsBefore = Files.exists(debs) ? Files.list(debs).count() : 0;
    CorpusFetcher again = new CorpusFetcher(corpus.getParent(), new PrintStream(new ByteArrayOutputStream()));
    CorpusFetcher.Result result = again.fetch(TestEnv.REAL_PACKAGES);
    assertEquals(List.of(), result.fetched());
    assertEquals(TestEnv.REAL_PACKAGES, result.cached());
    assertEquals(debsBefore, Files.exists(debs) ? Files.list(debs).count() : 0, "no new download");
    assertTrue(Files.isRegularFile(corpus.resolve("r-cran-tsp/TSP.pdf")));
    assertTrue(Files.isRegularFile(corpus.resolve("r-cran-tsp/TSP.Rnw")), "the Sweave source sits beside its PDF");
  }

  @Test
  void anUnknownPackageFailsAloneWithTheReason() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    Path data = TestEnv.WORK.resolve("setup-unknown");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/apt-get")), "apt-get absent: test skipped");
    CorpusFetcher.Result result = new CorpusFetcher(data, new PrintStream(log, true)).fetch(List.of("r-cran-no-such-package-arbor"));
    assertEquals(List.of("r-cran-no-such-package-arbor"), result.failed());
    assertTrue(log.toString().contains("apt-get download r-cran-no-such-package-arbor exited with"), log.toString());
  }
}
