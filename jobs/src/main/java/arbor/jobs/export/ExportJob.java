package arbor.jobs.export;

import arbor.jobs.cli.Args;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import arbor.pipelines.checkpoints.CheckpointStore;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.checkpoint.HfExport;
import arbor.policy.checkpoint.TableVersion;
import arbor.policy.files.TensorDtype;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Set;

/**
 * {@code arbor export --run R [--step N|latest] --out DIR [--dtype f32|bf16|f16]}: a checkpoint
 * of the warehouse as a Hugging Face folder, and how far its weights moved from the F32 masters.
 */
public final class ExportJob implements Job {

  @Override
  public String summary() {
    return "write a checkpoint (run, step) as a Hugging Face model folder";
  }

  @Override
  public String usage() {
    return """
        usage: arbor export --run RUN [--step N|latest] --out DIR [--dtype f32|bf16|f16]
                            [--as-of-version V | --as-of-time 2026-12-01T10:00:00Z]
          --step          the checkpoint's step (default latest complete one)
          --dtype         weight dtype of model.safetensors (default f32: the masters exactly;
                          bf16 and f16 round, and the largest difference is reported)
          --as-of-version, --as-of-time   Delta time travel: the table as it was then""";
  }

  @Override
  public int run(JobContext context) throws Exception {
    Args args = Args.parse("export", context.args(), Set.of(),
        Set.of("run", "step", "out", "dtype", "as-of-version", "as-of-time"));
    String run = args.value("run").orElseThrow(() -> new UsageError(
        "export: give the run: --run RUN (bin/arbor sql \"SELECT DISTINCT run_id FROM checkpoints\")"));
    Path out = Path.of(args.value("out").orElseThrow(() -> new UsageError(
        "export: give the output folder: --out DIR")));
    TensorDtype dtype = dtype(args.value("dtype").orElse("f32"));
    TableVersion at = at(args);
    CheckpointStore store = new CheckpointStore(context.spark(), context.warehouse(),
        context.config().checkpoints());
    String stepArg = args.value("step").orElse("latest");
    Checkpoint c;
    if (stepArg.equals("latest")) {
      c = store.loadLatest(run, at);
    } else {
      try {
        c = store.load(run, Long.parseLong(stepArg), at);
      } catch (NumberFormatException e) {
        throw new UsageError("export: --step must be a number or 'latest', got '" + stepArg + "'");
      }
    }
    HfExport.Report r = HfExport.write(c, out, dtype);
    context.out().printf(Locale.ROOT, "exported run %s step %d to %s: %d tensors, %s, %.1f MB%n",
        c.runId(), c.step(), out, r.tensors(), dtype.torchName(), r.weightBytes() / 1e6);
    context.out().printf(Locale.ROOT, "largest |exported - F32 master| = %s; %.2f%% of elements"
        + " changed%n", r.maxAbsDiff() == 0 ? "0 (exact)"
        : String.format(Locale.ROOT, "%.3g (%s)", r.maxAbsDiff(), r.worstTensor()),
        100 * r.changedFraction());
    return 0;
  }

  private static TensorDtype dtype(String s) {
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "f32", "float32" -> TensorDtype.F32;
      case "bf16", "bfloat16" -> TensorDtype.BF16;
      case "f16", "float16" -> TensorDtype.F16;
      default -> throw new UsageError("export: --dtype must be f32, bf16 or f16, got '" + s + "'");
    };
  }

  private static TableVersion at(Args args) {
    if (args.value("as-of-version").isPresent() && args.value("as-of-time").isPresent()) {
      throw new UsageError("export: give --as-of-version or --as-of-time, not both");
    }
    if (args.value("as-of-version").isPresent()) {
      try {
        return new TableVersion.AsOfVersion(Long.parseLong(args.value("as-of-version").get()));
      } catch (NumberFormatException e) {
        throw new UsageError("export: --as-of-version must be a Delta version number");
      }
    }
    if (args.value("as-of-time").isPresent()) {
      try {
        return new TableVersion.AsOfTimestamp(
            Instant.parse(args.value("as-of-time").get()).toEpochMilli());
      } catch (DateTimeParseException e) {
        throw new UsageError("export: --as-of-time must be an ISO instant such as"
            + " 2026-12-01T10:00:00Z");
      }
    }
    return TableVersion.LATEST;
  }
}
