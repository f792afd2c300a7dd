package arbor.jobs.repl;

import arbor.ingest.FileParser;
import arbor.ingest.Paper;
import arbor.ingest.Parsed;
import arbor.ingest.SourceFile;
import arbor.pipelines.ingest.SourceListing;
import arbor.jobs.cli.Args;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import arbor.inputs.MissingInput;
import arbor.conf.ArborConfig;
import arbor.conf.PolicySettings;
import arbor.conf.RolloutSettings.SandboxMode;
import arbor.policy.model.HfModelFolder;
import arbor.rlm.RlmContext;
import arbor.rlm.TreeJson;
import arbor.rlm.TreePrinter;
import arbor.rlm.TreeRunner;
import arbor.rlm.TreeSeed;
import arbor.conf.PolicyKind;
import arbor.rlm.runtime.RlmRuntime;
import ai.djl.Device;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code arbor repl}: runs one RLM tree over a context and prints it as it unfolds, or, with
 * {@code --json}, prints the whole tree as one JSON document at the end.
 */
public final class ReplJob implements Job {
  @Override
  public String summary() {
    return "run one RLM tree over papers or a context file and print it";
  }

  @Override
  public String usage() {
    return """
        usage: arbor repl --question TEXT (--papers PATH... | --context FILE) --policy scripted|replay|djl|openai|anthropic
                          [--replay FILE] [--model DIR] [--json] [--in-process]
          --papers      files or folders the ingest readers understand (PDF, markdown, QASPER JSON, JSON Lines)
          --context     a JSON file holding a string (one paper) or an object of paper id -> text
          --policy      scripted: the expert that follows the strategy; replay: responses from --replay;
                        djl: the trainable model (policy.djl.* settings);
                        openai, anthropic: an endpoint (policy.openai.*, policy.anthropic.*; key from the environment)
          --replay      JSON: node path -> that node's responses, e.g. {"root": ["..."], "root.0": ["..."]}
          --model       djl: a Hugging Face model folder (default: policy.djl.model_dir)
          --json        print the tree as one JSON document instead of as it unfolds
          --in-process  run the Python in this JVM (trusted code only) instead of sandbox worker processes""";
  }

  @Override
  public int run(JobContext context) throws Exception {
    Args args = Args.parse("repl", context.args(), Set.of("json", "in-process"),
        Set.of("question", "papers", "context", "policy", "replay", "model"));
    String question = args.value("question").orElseThrow(() -> new UsageError("repl: --question is required"));
    RlmContext rlmContext = context(args, context);
    PolicyKind kind;
    try {
      kind = PolicyKind.parse(args.value("policy").orElse("scripted"));
    } catch (IllegalArgumentException e) {
      throw new UsageError("repl: " + e.getMessage());
    }
    ArborConfig config = withFlags(context.config(), kind, args);
    boolean json = args.flag("json");
    SandboxMode mode = args.flag("in-process") ? SandboxMode.IN_PROCESS : SandboxMode.WORKERS;
    try (RlmRuntime runtime = RlmRuntime.create(config, mode, context.apiKeys());
        RlmRuntime.Rollout rollout = open(runtime, kind, json ? TreeRunner.TreeListener.NONE : new TreePrinter(context.out()))) {
      TreeRunner.TreeResult tree = rollout.runner().run("repl", question, rlmContext,
          TreeSeed.ofTree("repl", config.policy().djl().seed()));
      if (json) {
        context.out().println(TreeJson.write(tree));
      } else {
        context.out().printf("final answer (%s): %s%n", tree.root().status().key(), tree.root().finalAnswerJson());
      }
    }
    return 0;
  }

  /** The configuration with this run's --replay and --model, checked before anything starts. */
  private static ArborConfig withFlags(ArborConfig config, PolicyKind kind, Args args) {
    PolicySettings p = config.policy();
    if (kind == PolicyKind.REPLAY) {
      p = p.withReplayFile(args.value("replay").orElseThrow(() -> new UsageError("repl: --policy replay needs --replay FILE")));
    }
    if (kind == PolicyKind.DJL) {
      String dir = args.value("model").orElse(p.djl().modelDir());
      if (dir.isBlank()) {
        throw new UsageError("repl: --policy djl needs --model DIR (a Hugging Face model folder)"
            + " or policy.djl.model_dir");
      }
      if (!Files.isRegularFile(Path.of(dir, HfModelFolder.CONFIG))) {
        throw new UsageError("repl: djl policy: " + dir + " is not a Hugging Face model folder (no "
            + HfModelFolder.CONFIG + "); set policy.djl.model_dir or pass --model DIR");
      }
      p = p.withModelDir(dir);
    }
    return config.withPolicy(p);
  }

  private static RlmRuntime.Rollout open(RlmRuntime runtime, PolicyKind kind, TreeRunner.TreeListener listener) {
    try {
      return runtime.open(kind, "repl", 0, Device.cpu(), listener);
    } catch (IllegalArgumentException e) {
      throw new UsageError("repl: " + e.getMessage());  // e.g. the API key variable is not set
    }
  }

  private static RlmContext context(Args args, JobContext job) throws Exception {
    if (args.value("context").isPresent() == !args.values("papers").isEmpty()) {
      throw new UsageError("repl: give either --papers PATH... or --context FILE");
    }
    if (args.value("context").isPresent()) {
      Path file = Path.of(args.value("context").get());
      if (!Files.isRegularFile(file)) {
        throw new MissingInput("the --context file", file.toAbsolutePath().normalize(),
            "give a JSON file holding a string (one paper) or an object of paper id -> text, or --papers PATH...");
      }
      try {
        return RlmContext.fromJson(new ObjectMapper().readTree(file.toFile()));
      } catch (IllegalArgumentException e) {
        throw new UsageError("repl: " + file + ": " + e.getMessage());
      }
    }
    // The papers are read as ingest reads them (the policy sees their noisy text), without Spark.
    FileParser parser = new FileParser(job.config().ingest());
    org.apache.hadoop.conf.Configuration hadoop = new org.apache.hadoop.conf.Configuration();
    SourceListing.Result listing = SourceListing.list(args.values("papers"), hadoop);
    Map<String, String> papers = new LinkedHashMap<>();
    for (SourceFile file : listing.files()) {
      Parsed parsed = parser.parse(file, path -> {
        org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(path);
        try (var in = p.getFileSystem(hadoop).open(p)) {
          return in.readAllBytes();
        }
      });
      for (Paper paper : parsed.papers()) {
        papers.put(paper.paperId(), paper.noisyText());
      }
    }
    if (papers.isEmpty()) {
      throw new UsageError("repl: no papers could be read from " + args.values("papers"));
    }
    return papers.size() == 1 ? new RlmContext.Single(papers.values().iterator().next())
        : new RlmContext.Papers(papers);
  }
}
