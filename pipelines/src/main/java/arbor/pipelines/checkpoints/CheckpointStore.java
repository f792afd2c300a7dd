package arbor.pipelines.checkpoints;

import ai.djl.ndarray.NDArray;
import arbor.conf.CheckpointSettings;
import arbor.pipelines.warehouse.Table;
import arbor.pipelines.warehouse.Warehouse;
import arbor.policy.checkpoint.Checkpoint;
import arbor.policy.checkpoint.CheckpointChunks;
import arbor.policy.checkpoint.ChunkRow;
import arbor.policy.checkpoint.DeltaCheckpointReader;
import arbor.policy.checkpoint.OptimizerState;
import arbor.policy.checkpoint.TableVersion;
import arbor.policy.files.HostTensor;
import arbor.policy.files.TensorDtype;
import arbor.policy.holder.DeltaCheckpointSource;
import arbor.policy.model.HfModelFolder;
import arbor.policy.model.PolicyModel;
import arbor.tables.Checkpoints;
import arbor.tables.Checkpoints.Kind;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;

/**
 * The training state of runs in the warehouse's {@code checkpoints} Delta table (schema and
 * layout: {@link Checkpoints}): one complete checkpoint per (run, step), written by the driver,
 * read by the driver to resume and by executors (through {@link #source()}) to generate.
 *
 * <pre>{@code
 * CheckpointStore store = new CheckpointStore(spark, warehouse, config.checkpoints());
 * store.save("run-1", 3, policy, optimizer.state(), rng.state(), Map.of());
 * Optional<Long> last = store.latest("run-1");                 // 3
 * Checkpoint c = store.load("run-1", 3);                        // bit for bit what was saved
 * Checkpoint old = store.load("run-1", 3, new TableVersion.AsOfVersion(12));   // time travel
 * }</pre>
 *
 * <p>A save writes its chunks, then a manifest row, and the checkpoint exists from the commit
 * that adds the manifest: a save killed part-way leaves rows no reader sees. Saving a step again
 * replaces it (the final commit removes every other write of that step), so a rerun after a
 * crash leaves one copy.
 */
public final class CheckpointStore {

  private final SparkSession spark;
  private final Warehouse warehouse;
  private final int chunkBytes;
  private final long commitBytes;

  public CheckpointStore(SparkSession spark, Warehouse warehouse, CheckpointSettings settings) {
    this(spark, warehouse, settings.chunkBytes(), settings.commitBytes());
  }

  /** Sizes in bytes, below the MiB the configuration allows (tests cut tiny models in chunks). */
  CheckpointStore(SparkSession spark, Warehouse warehouse, int chunkBytes, long commitBytes) {
    this.spark = spark;
    this.warehouse = warehouse;
    this.chunkBytes = chunkBytes;
    this.commitBytes = commitBytes;
  }

  public String tablePath() {
    return warehouse.path(Table.CHECKPOINTS);
  }

  /** What executors load checkpoints through: reads this table with the same Hadoop settings. */
  public DeltaCheckpointSource source() {
    return new DeltaCheckpointSource(tablePath(), hadoopSettings());
  }

  /**
   * Saves the policy's F32 masters (whatever dtype its folder stored them in), its config and
   * side files (tokenizer, chat template), the optimizer state, the RNG state and any extra files.
   *
   * @return the Delta version of the commit that made the checkpoint visible
   */
  public long save(String runId, long step, PolicyModel policy, OptimizerState optimizer,
      byte[] rng, Map<String, byte[]> extraFiles) {
    List<HostTensor> masters = new ArrayList<>();
    for (var e : policy.model().parameters().entrySet()) {
      NDArray a = e.getValue();
      masters.add(new HostTensor(e.getKey(), TensorDtype.F32, a.getShape().getShape(),
          a.toFloatArray()));
    }
    Map<String, byte[]> files = new LinkedHashMap<>(policy.sideFiles());
    files.put(HfModelFolder.CONFIG, policy.config().toJson().getBytes(StandardCharsets.UTF_8));
    files.putAll(extraFiles);
    return save(new Checkpoint(runId, step, masters, optimizer, rng, files));
  }

  /** Saves a checkpoint; returns the Delta version of the commit that made it visible. */
  public long save(Checkpoint c) {
    String writeId = UUID.randomUUID().toString();
    CheckpointChunks chunks = new CheckpointChunks(c, writeId, chunkBytes);
    Timestamp at = new Timestamp(System.currentTimeMillis());
    String step = "run_id = " + Warehouse.sqlString(c.runId()) + " AND step = " + c.step();
    List<Row> manifest = List.of(row(c, writeId, at, chunks.manifestRow(),
        new String(chunks.manifestRow().data(), StandardCharsets.UTF_8)));
    if (chunks.bytes() <= commitBytes) {
      // Small enough for one commit: data and manifest appear together, the old step goes.
      List<Row> rows = new ArrayList<>(manifest);
      chunks.batches(Long.MAX_VALUE).forEachRemaining(b -> b.forEach(r ->
          rows.add(row(c, writeId, at, r, null))));
      write(rows, step);
    } else {
      appendData(c, writeId, chunks, at);
      // Publishes the new write and drops every other write of the step (an older complete one,
      // or the rows of a save that crashed before its manifest), in one commit.
      write(manifest, step + " AND (" + Checkpoints.WRITE_ID + " <> '" + writeId + "' OR "
          + Checkpoints.KIND + " = '" + Kind.MANIFEST.name() + "')");
    }
    return lastCommitVersion();
  }

  /**
   * Writes a checkpoint's chunks without its manifest: the first phase of a large save, and what
   * a save killed before its final commit leaves behind (tests use it to make one).
   */
  void appendData(Checkpoint c, String writeId, CheckpointChunks chunks, Timestamp at) {
    Iterator<List<ChunkRow>> batches = chunks.batches(commitBytes);
    while (batches.hasNext()) {
      List<Row> rows = new ArrayList<>();
      batches.next().forEach(r -> rows.add(row(c, writeId, at, r, null)));
      write(rows, null);
    }
  }

  /** A save killed before its manifest commit: its rows exist, its checkpoint does not. */
  void appendDataOnly(Checkpoint c) {
    String writeId = UUID.randomUUID().toString();
    appendData(c, writeId, new CheckpointChunks(c, writeId, chunkBytes),
        new Timestamp(System.currentTimeMillis()));
  }

  /** The latest complete step of the run now, if any. */
  public Optional<Long> latest(String runId) {
    return latest(runId, TableVersion.LATEST);
  }

  public Optional<Long> latest(String runId, TableVersion at) {
    if (!warehouse.exists(Table.CHECKPOINTS)) {
      return Optional.empty();
    }
    return reader().latest(runId, at).map(DeltaCheckpointReader.Version::step);
  }

  /** Every complete step of the run in that table version. */
  public List<Long> steps(String runId, TableVersion at) {
    if (!warehouse.exists(Table.CHECKPOINTS)) {
      return List.of();
    }
    return List.copyOf(reader().versions(runId, at).keySet());
  }

  /** The whole checkpoint of a step, every entry checked against its hash. */
  public Checkpoint load(String runId, long step) {
    return load(runId, step, TableVersion.LATEST);
  }

  public Checkpoint load(String runId, long step, TableVersion at) {
    return reader().read(runId, step, at, EnumSet.allOf(Kind.class));
  }

  /** The latest complete checkpoint of the run in that table version. */
  public Checkpoint loadLatest(String runId, TableVersion at) {
    DeltaCheckpointReader reader = reader();
    var v = reader.latest(runId, at).orElseThrow(() -> new IllegalArgumentException(
        "run '" + runId + "' has no complete checkpoint in " + tablePath()));
    return reader.read(runId, v, EnumSet.allOf(Kind.class));
  }

  private DeltaCheckpointReader reader() {
    return new DeltaCheckpointReader(tablePath(), hadoopSettings());
  }

  /** The session's {@code spark.hadoop.*} settings, so Kernel reaches what Spark reaches. */
  private Map<String, String> hadoopSettings() {
    Map<String, String> out = new TreeMap<>();
    for (scala.Tuple2<String, String> e : spark.sparkContext().getConf().getAll()) {
      if (e._1().startsWith("spark.hadoop.")) {
        out.put(e._1().substring("spark.hadoop.".length()), e._2());
      }
    }
    return out;
  }

  private void write(List<Row> rows, String replaceWhere) {
    var writer = spark.createDataFrame(rows, Checkpoints.SCHEMA)
        // One task: a checkpoint's rows are few and large; more tasks only add files.
        .coalesce(1)
        .write().format("delta")
        // Float bytes are near-random: Snappy saves nothing on them and costs CPU on every save.
        .option("compression", "uncompressed");
    if (!warehouse.exists(Table.CHECKPOINTS)) {
      writer.partitionBy(Checkpoints.PARTITIONS).mode("append").save(tablePath());
    } else if (replaceWhere == null) {
      writer.mode("append").save(tablePath());
    } else {
      writer.mode("overwrite").option("replaceWhere", replaceWhere).save(tablePath());
    }
  }

  private long lastCommitVersion() {
    return io.delta.tables.DeltaTable.forPath(spark, tablePath()).history(1)
        .select("version").first().getLong(0);
  }

  private static Row row(Checkpoint c, String writeId, Timestamp at, ChunkRow r,
      String manifest) {
    List<Long> shape = new ArrayList<>();
    for (long d : r.shape()) {
      shape.add(d);
    }
    return RowFactory.create(c.runId(), c.step(), r.tensor(), r.chunk(), r.chunks(), writeId,
        r.kind().name(), r.dtype(), shape, r.sha256(), at, manifest, r.data());
  }
}
