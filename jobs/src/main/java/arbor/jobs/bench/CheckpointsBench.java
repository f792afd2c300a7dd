package arbor.jobs.bench;

import arbor.jobs.cli.Args;
import arbor.jobs.cli.UsageError;
import arbor.pipelines.checkpoints.CheckpointStore;
import arbor.pipelines.warehouse.Warehouse;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.checkpoint.OptimizerState;
import arbor.policy.files.HostTensor;
import arbor.policy.files.SafetensorsFile;
import arbor.policy.files.SafetensorsWriter;
import arbor.policy.files.TensorDtype;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Write and read throughput of the Delta checkpoint store (chunked rows, SHA-256 per tensor,
 * manifest commit; read back through Delta Kernel with every hash checked) against writing and
 * reading the same tensors as one safetensors file, in the same run on the same disk. The
 * checkpoint is synthetic: weights plus AdamW's two moments, random F32 values (which no
 * compression shrinks, as with real weights).
 */
final class CheckpointsBench implements Benchmark {

  @Override
  public String summary() {
    return "Delta checkpoint store vs one safetensors file: write and read MB/s";
  }

  @Override
  public Map<String, Object> run(BenchContext ctx) throws Exception {
    Args args = Args.parse("bench checkpoints", ctx.args(), Set.of(),
        Set.of("mib", "repeats"));
    int mib = Integer.parseInt(args.value("mib").orElse("192"));
    int repeats = Integer.parseInt(args.value("repeats").orElse("3"));
    if (mib < 3 || repeats < 1) {
      throw new UsageError("bench checkpoints: --mib must be at least 3 and --repeats at least 1");
    }
    PrintStream out = ctx.out();
    Path scratch = Path.of(ctx.config().dataDir()).toAbsolutePath()
        .resolve("bench/checkpoints-" + System.currentTimeMillis());
    Files.createDirectories(scratch);
    Checkpoint c = synthetic(mib);
    double mb = c.bytes() / 1e6;
    CheckpointStore store = new CheckpointStore(ctx.spark(),
        new Warehouse(ctx.spark(), scratch.resolve("warehouse").toString()),
        ctx.config().checkpoints());
    List<HostTensor> all = new ArrayList<>(c.weights());
    all.addAll(c.optimizer().tensors());
    out.printf("bench checkpoints: %.0f MB (weights + 2 moments), chunks %d MiB, commits %d MiB,"
        + " %d repeats, %d cores%n", mb, ctx.config().checkpoints().chunkMib(),
        ctx.config().checkpoints().commitMib(), repeats, Runtime.getRuntime().availableProcessors());
    // Warm-up: the first Delta write creates the table and loads the writer's classes.
    store.save(new Checkpoint("warmup", 0, List.of(c.weights().get(0)), OptimizerState.NONE,
        new byte[0], Map.of()));

    double dw = Double.MAX_VALUE, dr = Double.MAX_VALUE, fw = Double.MAX_VALUE, fr = Double.MAX_VALUE;
    out.println("repeat | delta write s | delta read s | file write s | file read s");
    for (int i = 0; i < repeats; i++) {
      long t0 = System.nanoTime();
      store.save(new Checkpoint("bench", i, c.weights(), c.optimizer(), c.rng(), c.files()));
      long t1 = System.nanoTime();
      Checkpoint back = store.load("bench", i);
      long t2 = System.nanoTime();
      if (back.weights().size() != c.weights().size()) {
        throw new IllegalStateException("read back " + back.weights().size() + " weights");
      }
      Path file = scratch.resolve("bench-" + i + ".safetensors");
      SafetensorsWriter.write(file, all);
      long t3 = System.nanoTime();
      long elements = 0;
      try (SafetensorsFile f = new SafetensorsFile(file)) {
        for (String name : f.names()) {
          elements += f.read(name).elementCount();
        }
      }
      long t4 = System.nanoTime();
      if (elements * 4 < c.bytes() - 1_000_000) {
        throw new IllegalStateException("file read back " + elements + " elements");
      }
      double[] s = {(t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9, (t4 - t3) / 1e9};
      out.printf("%6d | %13.2f | %12.2f | %12.2f | %11.2f%n", i, s[0], s[1], s[2], s[3]);
      dw = Math.min(dw, s[0]);
      dr = Math.min(dr, s[1]);
      fw = Math.min(fw, s[2]);
      fr = Math.min(fr, s[3]);
    }
    out.printf("best MB/s: delta write %.0f, delta read %.0f, file write %.0f, file read %.0f%n",
        mb / dw, mb / dr, mb / fw, mb / fr);
    // Over a GB of scratch per run: nothing in it is worth keeping.
    arbor.jobs.cli.FileTrees.delete(scratch);
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("mb", Math.round(mb));
    figures.put("delta_write_mb_s", round(mb / dw));
    figures.put("delta_read_mb_s", round(mb / dr));
    figures.put("file_write_mb_s", round(mb / fw));
    figures.put("file_read_mb_s", round(mb / fr));
    figures.put("write_ratio_vs_file", round(fw / dw));
    figures.put("read_ratio_vs_file", round(fr / dr));
    return figures;
  }

  /** Weights of about a third of the size, and two moments of the same shapes. */
  private static Checkpoint synthetic(int mib) {
    long weightFloats = ((long) mib << 20) / 3 / 4;
    int tensorFloats = 1 << 20;
    SplittableRandom rng = new SplittableRandom(1);
    List<HostTensor> weights = new ArrayList<>();
    List<HostTensor> moments = new ArrayList<>();
    for (int i = 0; weightFloats > 0; i++) {
      int n = (int) Math.min(tensorFloats, weightFloats);
      weightFloats -= n;
      weights.add(random("layer." + i + ".weight", n, rng));
      moments.add(random("m/layer." + i + ".weight", n, rng));
      moments.add(random("v/layer." + i + ".weight", n, rng));
    }
    return new Checkpoint("bench", 0, weights,
        new OptimizerState(moments, "{\"optimizer\":\"adamw\",\"step\":1}"), new byte[16],
        Map.of("config.json", "{}".getBytes()));
  }

  private static HostTensor random(String name, int n, SplittableRandom rng) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = (float) (rng.nextDouble() - 0.5) * 0.04f;
    }
    return new HostTensor(name, TensorDtype.F32, new long[] {n}, v);
  }

  private static double round(double x) {
    return Math.round(x * 1000) / 1000.0;
  }
}
