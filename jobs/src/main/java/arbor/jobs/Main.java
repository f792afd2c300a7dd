package arbor.jobs;

import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import arbor.conf.ArborConfig;
import arbor.jobs.conf.ConfigError;
import arbor.jobs.conf.ConfigLoader;
import arbor.inputs.MissingInput;
import arbor.jobs.bench.BenchJob;
import arbor.jobs.demo.DemoJob;
import arbor.jobs.ingest.IngestJob;
import arbor.jobs.setup.SetupJob;
import arbor.jobs.sql.SqlJob;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code arbor <job> [--conf FILE]... [--set key=value]... [job options]}: the one entry point,
 * for {@code bin/arbor} and for {@code spark-submit --class arbor.jobs.Main arbor-jobs.jar}.
 * Exit codes: 0 done, 1 the job failed, 2 the command line or configuration is wrong or an
 * input is missing ({@link MissingInput}: one line that says which and how to get it).
 */
public final class Main {

  static Map<String, Job> jobs() {
    Map<String, Job> jobs = new LinkedHashMap<>();
    jobs.put("demo", new DemoJob());
    jobs.put("setup", new SetupJob());
    jobs.put("ingest", new IngestJob());
    jobs.put("synthesize", new arbor.jobs.synthesize.SynthesizeJob());
    jobs.put("refresh", new arbor.jobs.refresh.RefreshJob());
    jobs.put("sql", new SqlJob());
    jobs.put("bench", new BenchJob());
    jobs.put("repl", new arbor.jobs.repl.ReplJob());
    jobs.put("train", new arbor.jobs.train.TrainJob());
    jobs.put("export", new arbor.jobs.export.ExportJob());
    jobs.put("sft", new arbor.jobs.sft.SftJob());
    jobs.put("eval", new arbor.jobs.eval.EvalJob());
    jobs.put("view", new arbor.jobs.view.ViewJob());
    jobs.put("report", new arbor.jobs.report.ReportJob());
    return jobs;
  }

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  public static int run(String[] argv, PrintStream out, PrintStream err) {
    List<String> confs = new ArrayList<>();
    List<String> sets = new ArrayList<>();
    List<String> rest = new ArrayList<>();
    boolean help = false;
    try {
      for (int i = 0; i < argv.length; i++) {
        String a = argv[i];
        switch (a) {
          case "--conf" -> confs.add(next(argv, ++i, a));
          case "--set" -> sets.add(next(argv, ++i, a));
          case "--help", "-h" -> help = true;
          default -> {
            if (a.startsWith("--conf=")) confs.add(a.substring(7));
            else if (a.startsWith("--set=")) sets.add(a.substring(6));
            else rest.add(a);
          }
        }
      }
      Map<String, Job> jobs = jobs();
      if (rest.isEmpty() || rest.get(0).startsWith("-")) {
        if (!rest.isEmpty()) throw new UsageError("unknown option '" + rest.get(0) + "' (the job name comes first)");
        out.print(overview(jobs));
        return help ? 0 : 2;
      }
      String name = rest.get(0);
      Job job = jobs.get(name);
      if (job == null) throw new UsageError("unknown job '" + name + "'; the jobs are " + jobs.keySet() + " (arbor --help)");
      if (help) {
        out.println("arbor " + name + ": " + job.summary() + "\n\n" + job.usage());
        return 0;
      }
      List<String> layers = new ArrayList<>(job.profiles());
      layers.addAll(confs);
      ArborConfig config = ConfigLoader.load(layers, sets);
      try (JobContext context = new JobContext(name, config, rest.subList(1, rest.size()), out)) {
        return job.run(context);
      }
    } catch (UsageError | ConfigError e) {
      err.println("arbor: " + e.getMessage());
      return 2;
    } catch (Exception e) {
      MissingInput missing = MissingInput.in(e);
      if (missing != null) {
        err.println(missing.line(rest.get(0)));
        return 2;
      }
      err.println("arbor: the job failed: " + e);
      e.printStackTrace(err);
      return 1;
    }
  }

  private static String next(String[] argv, int i, String option) {
    if (i >= argv.length) throw new UsageError(option + " needs a value");
    return argv[i];
  }

  static String overview(Map<String, Job> jobs) {
    StringBuilder s = new StringBuilder("""
        usage: arbor <job> [--conf FILE|PROFILE]... [--set key=value]... [job options]

        Arbor trains recursive language models with RL on Apache Spark.

        jobs:
        """);
    jobs.forEach((name, job) -> s.append(String.format("  %-8s %s%n", name, job.summary())));
    s.append("""

        options (every job):
          --conf FILE|PROFILE  configuration to apply over conf/defaults.conf (repeatable;
                               profiles: local, cluster, gpu, demo)
          --set key=value      override one key, e.g. --set warehouse=/tmp/wh (repeatable)
          --help               this overview, or a job's options: arbor <job> --help

        bin/arbor test runs the test suite.
        """);
    return s.toString();
  }
}
