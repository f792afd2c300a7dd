package arbor.jobs.demo;

import arbor.conf.ArborConfig;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.eval.EvalJob;
import arbor.jobs.ingest.IngestJob;
import arbor.jobs.setup.SetupJob;
import arbor.jobs.setup.TokenizerFetcher;
import arbor.jobs.sft.SftJob;
import arbor.jobs.sql.TextTable;
import arbor.jobs.synthesize.DatasetBuilder;
import arbor.jobs.synthesize.SynthesizeJob;
import arbor.jobs.train.TrainJob;
import arbor.pipelines.checkpoints.CheckpointStore;
import arbor.policy.model.ModelConfig;
import arbor.pipelines.warehouse.Table;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import arbor.rlm.Prompts;
import arbor.rlm.policy.NodePath;
import arbor.rlm.policy.Policy;
import arbor.rlm.policy.PolicyCall;
import arbor.rlm.runtime.FixedPolicies;
import org.apache.spark.sql.Encoders;
import java.util.Optional;

/**
 * {@code arbor demo}: the whole pipeline on embedded defaults, from nothing to a trained and
 * evaluated policy, on one machine without a GPU or an API key: fetch the demo corpus, ingest
 * it, synthesize the dataset, make a tiny student, cold-start it by SFT on the scripted expert's
 * trees, run a few GRPO steps, evaluate on the validation split, and print a summary. Sizes come
 * from the {@code demo} profile ({@code conf/demo.conf}); a second run downloads nothing, and
 * continues (or skips) the training run instead of starting it again.
 */
public final class DemoJob implements Job {
  /** The demo's training run. */
  static final String RUN = "demo";

  @Override
  public String summary() {
    return "the whole pipeline on embedded defaults: corpus, dataset, sft, a few train steps, eval";
  }

  @Override
  public String usage() {
    return "no options; sizes come from conf/demo.conf (applied first; --conf and --set override it),\n"
        + "--set data_dir=... and --set warehouse=... move where it works.";
  }

  @Override
  public List<String> profiles() {
    return List.of("demo");
  }

  @Override
  public int run(JobContext context) throws Exception {
    long start = System.nanoTime();
    var c = context.config();
    if (!dataset(context, "demo", 7)) return 1;
    student(context, "demo", 4, 7);

    CheckpointStore store = new CheckpointStore(context.spark(), context.warehouse(), c.checkpoints());
    context.out().println("== demo 5/7: sft (the scripted expert teaches the student on the sft split)");
    if (store.latest(RUN).isPresent()) {
      context.out().println("demo: run '" + RUN + "' already has its step-0 checkpoint; sft skipped");
    } else if (job(new SftJob(), context, "--run", RUN) != 0) {
      return 1;
    }

    context.out().printf("== demo 6/7: train (%d GRPO steps: rollouts, judge, advantages, learner, checkpoint)%n",
        c.train().steps());
    Optional<Long> latest = store.latest(RUN);
    if (job(new TrainJob(), context, latest.isPresent() && latest.get() > 0
        ? new String[] {"--run", RUN, "--resume"} : new String[] {"--run", RUN}) != 0) {
      return 1;
    }

    context.out().println("== demo 7/7: eval (the trained student on the validation split)");
    Path report = Path.of(c.dataDir(), "reports", RUN).toAbsolutePath();
    if (job(new EvalJob(), context, "--run", RUN, "--split", "validation", "--report", report.toString()) != 0) {
      return 1;
    }

    context.warehouse().registerViews();
    context.out().println("demo: the run's steps (metrics table)");
    context.out().print(TextTable.render(context.spark().sql("""
        SELECT step, name, round(value, 4) AS value FROM metrics
        WHERE run_id = '%s' AND name IN ('judge.reward_mean', 'learner.kl', 'learner.clip_fraction',
          'rollouts.children_per_root', 'learner.loss')
        ORDER BY step, name""".formatted(RUN)), 60));
    context.out().printf("demo: done in %.0f s; the report is %s/report.html; explore with bin/arbor sql \"SELECT * FROM metrics\"%n",
        (System.nanoTime() - start) / 1e9, report);
    return 0;
  }

  /**
   * The demo's dataset, steps 1-3 of {@code total}: the demo corpus and the Qwen3 tokenizer,
   * their ingest, and the synthesized queries with their splits (printed). Returns false when a
   * step came out empty (its own lines say why). Shared with {@code bench learning}.
   */
  public static boolean dataset(JobContext context, String who, int total) throws Exception {
    var c = context.config();
    context.out().printf("== %s 1/%d: setup (the demo corpus and the Qwen3 tokenizer)%n", who, total);
    if (SetupJob.setup(context, c.setup().packages(), true) != 0) return false;

    context.out().printf("== %s 2/%d: ingest%n", who, total);
    Path corpus = Path.of(c.dataDir(), "corpus").toAbsolutePath();
    if (IngestJob.ingest(context, List.of(corpus.toString())).papers() == 0) return false;

    context.out().printf("== %s 3/%d: synthesize (embeddings, groups, queries and their splits)%n", who, total);
    DatasetBuilder.Summary dataset = SynthesizeJob.synthesize(context);
    if (dataset.queriesTotal() == 0) return false;
    printSplits(context);
    return true;
  }

  /** Queries and groups per split of the active queries. */
  public static void printSplits(JobContext context) {
    context.warehouse().registerViews();
    context.out().print(TextTable.render(context.spark().sql("""
        SELECT split, count(*) AS queries, count(DISTINCT group_id) AS groups FROM queries
        WHERE retired_at IS NULL GROUP BY split ORDER BY split"""), 10));
  }

  /**
   * The student (step {@code step} of {@code total}): the random Qwen3-architecture model of
   * {@code setup.student} at {@code policy.djl.model_dir}, written unless it is there (setup
   * fetches the tokenizer first when it is missing). A trimmed vocabulary is drawn from the
   * texts of {@link #studentTexts}.
   */
  public static ModelConfig student(JobContext context, String who, int step, int total) throws Exception {
    var c = context.config();
    context.out().printf("== %s %d/%d: the student, a random model of the Qwen3 architecture%n", who, step, total);
    Path model = Path.of(c.policy().djl().modelDir());
    TokenizerFetcher tokenizer = new TokenizerFetcher(Path.of(c.dataDir()));
    if (!tokenizer.present()) SetupJob.setup(context, c.setup().packages(), true);
    DemoModel.Written student = DemoModel.ensure(model, tokenizer.target(), c.setup().student(),
        () -> studentTexts(context));
    context.out().printf("%s: %s %s (%s)%n", who, student.made() ? "wrote" : "reusing", model, student.description());
    return student.config();
  }

  /**
   * What a student in this configuration reads and writes, for its trimmed vocabulary: the
   * prompt files, every active query's question in the instructions that quote it, the papers'
   * ids, the chat format's markers, and the scripted teacher's turns for many seeds. Paper texts
   * are not among them: the teacher prints counts and ids, not passages. Any other text still
   * encodes (byte by byte at worst).
   */
  static Iterable<String> studentTexts(JobContext context) {
    List<String> questions = context.warehouse().read(Table.QUERIES)
        .select(arbor.synthesis.Queries.QUESTION).distinct().as(Encoders.STRING()).collectAsList();
    List<String> paperIds = context.warehouse().read(Table.PAPERS)
        .select("paper_id").as(Encoders.STRING()).collectAsList();
    return studentTexts(context.config(), questions, paperIds);
  }

  /** {@link #studentTexts(JobContext)} for these questions and papers. */
  public static List<String> studentTexts(ArborConfig c, List<String> questions, List<String> paperIds) {
    Prompts prompts = Prompts.of(c.rlm());
    List<String> texts = new ArrayList<>(prompts.systems().values());
    texts.add("<|im_start|>system\n<|im_end|>\n<|im_start|>user\n<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
    texts.add("0123456789 REPL variables: [] no code block found Traceback (most recent call last):");
    Policy teacher = FixedPolicies.scripted(c);
    for (int i = 0; i < questions.size(); i++) {
      String q = questions.get(i);
      texts.add(prompts.instruction(0, q));
      texts.add(prompts.instruction(1, q));
      texts.add(prompts.finalInstruction(q));
      for (boolean multi : new boolean[] {true, false}) {
        for (int turn = 0; turn < 2; turn++) {
          try {
            texts.add(teacher.generate(new PolicyCall(NodePath.ROOT, turn, List.of(), q, multi, i * 31L + turn)).text());
          } catch (Policy.PolicyException e) {
            // A teacher with fewer turns: nothing more to learn from it.
          }
        }
      }
    }
    texts.addAll(paperIds);
    return texts;
  }

  /** Runs another job on this job's configuration and Spark session. */
  private static int job(Job job, JobContext context, String... args) throws Exception {
    try (JobContext sub = new JobContext(context.job(), context.config(), List.of(args), context.out())) {
      return job.run(sub);
    }
  }
}
