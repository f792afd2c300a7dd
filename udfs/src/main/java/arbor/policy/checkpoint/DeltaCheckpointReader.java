package arbor.policy.checkpoint;

import arbor.tables.Checkpoints;
import arbor.tables.Checkpoints.Kind;
import arbor.tables.Cols;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Or;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;

/**
 * Reads checkpoints from the {@code checkpoints} Delta table with Delta Kernel, Delta's own Java
 * reader that needs no SparkSession: the same code serves the driver and the executors, and
 * reads any Hadoop URI the executor's Hadoop configuration can reach. Only complete checkpoints
 * exist for it: a step is listed once its manifest row is committed, and only the rows of the
 * write its manifest names are read.
 *
 * <p>The table is partitioned by run, step and kind, so finding steps reads only the manifest
 * files, and loading weights for generation never opens the optimizer's files.
 */
public final class DeltaCheckpointReader {

  /** Rows per Kernel batch: each row holds up to one chunk (tens of MiB). */
  private static final String BATCH_SIZE_KEY = "delta.kernel.default.parquet.reader.batch-size";

  private final String tablePath;
  private final Engine engine;

  /** @param hadoop extra Hadoop settings (file system credentials, ...), may be empty */
  public DeltaCheckpointReader(String tablePath, Map<String, String> hadoop) {
    this.tablePath = tablePath;
    Configuration conf = new Configuration();
    conf.set(BATCH_SIZE_KEY, "2");
    hadoop.forEach(conf::set);
    this.engine = DefaultEngine.create(conf);
  }

  /** A complete checkpoint as its manifest row describes it. */
  public record Version(long step, String writeId, Manifest manifest, long tableVersion) {}

  /** Every complete checkpoint of the run in the given table version, by step. */
  public TreeMap<Long, Version> versions(String runId, TableVersion at) {
    Snapshot snapshot = snapshot(at);
    TreeMap<Long, Version> out = new TreeMap<>();
    Predicate filter = and(eq(Cols.RUN_ID, Literal.ofString(runId)),
        eq(Checkpoints.KIND, Literal.ofString(Kind.MANIFEST.name())));
    forEachRow(snapshot, filter, List.of(Cols.STEP, Checkpoints.WRITE_ID, Checkpoints.MANIFEST),
        r -> {
          long step = r.getLong(0);
          String where = "checkpoint " + runId + " step " + step;
          Manifest m = Manifest.parse(r.getString(2).getBytes(java.nio.charset.StandardCharsets.UTF_8),
              where);
          if (!m.writeId().equals(r.getString(1))) {
            throw new CheckpointCorruptException(where + ": the manifest row's write id "
                + r.getString(1) + " differs from its JSON's " + m.writeId());
          }
          if (out.put(step, new Version(step, m.writeId(), m, snapshot.getVersion())) != null) {
            throw new CheckpointCorruptException(where + " has two manifests; only a save's"
                + " final commit writes one, replacing any other");
          }
        });
    return out;
  }

  /** The latest complete step of the run, if any. */
  public Optional<Version> latest(String runId, TableVersion at) {
    var all = versions(runId, at);
    return all.isEmpty() ? Optional.empty() : Optional.of(all.lastEntry().getValue());
  }

  /** Loads a complete checkpoint, checking every entry; only the given kinds are read. */
  public Checkpoint read(String runId, long step, TableVersion at, Set<Kind> kinds) {
    Version v = versions(runId, at).get(step);
    if (v == null) {
      throw new IllegalArgumentException("run '" + runId + "' has no complete checkpoint at step "
          + step + " in " + tablePath + describe(at) + "; complete steps: "
          + versions(runId, at).keySet());
    }
    return read(runId, v, kinds);
  }

  /**
   * Loads the checkpoint a {@link Version} (from {@link #versions}) describes, from the table
   * version its manifest was found in.
   */
  public Checkpoint read(String runId, Version v, Set<Kind> kinds) {
    Snapshot snapshot = snapshot(new TableVersion.AsOfVersion(v.tableVersion()));
    CheckpointAssembler assembler = new CheckpointAssembler(runId, v.step(), v.manifest(), kinds);
    Predicate kindFilter = null;
    for (Kind k : kinds) {
      Predicate p = eq(Checkpoints.KIND, Literal.ofString(k.name()));
      kindFilter = kindFilter == null ? p : new Or(kindFilter, p);
    }
    Predicate filter = and(and(eq(Cols.RUN_ID, Literal.ofString(runId)),
        eq(Cols.STEP, Literal.ofLong(v.step()))), kindFilter);
    forEachRow(snapshot, filter, List.of(Checkpoints.TENSOR, Checkpoints.CHUNK,
        Checkpoints.WRITE_ID, Checkpoints.DATA), r -> {
          // Rows of an unfinished or replaced save of the same step are not this checkpoint.
          if (r.getString(2).equals(v.writeId()) && assembler.wants(r.getString(0))) {
            assembler.accept(r.getString(0), r.getInt(1), r.getBinary(3));
          }
        });
    return assembler.finish();
  }

  private Snapshot snapshot(TableVersion at) {
    Table table = Table.forPath(engine, tablePath);
    try {
      return switch (at) {
        case TableVersion.Latest l -> table.getLatestSnapshot(engine);
        case TableVersion.AsOfVersion v -> table.getSnapshotAsOfVersion(engine, v.version());
        case TableVersion.AsOfTimestamp t -> table.getSnapshotAsOfTimestamp(engine, t.epochMillis());
      };
    } catch (TableNotFoundException e) {
      throw new IllegalStateException("no checkpoints table at " + tablePath + "; a training"
          + " job writes it (bin/arbor train or sft)", e);
    }
  }

  private static String describe(TableVersion at) {
    return switch (at) {
      case TableVersion.Latest l -> "";
      case TableVersion.AsOfVersion v -> " as of table version " + v.version();
      case TableVersion.AsOfTimestamp t -> " as of " + java.time.Instant.ofEpochMilli(t.epochMillis());
    };
  }

  private interface RowConsumer {
    void accept(Row r);
  }

  /** Reads the columns of every live row of the files the partition filter selects. */
  private void forEachRow(Snapshot snapshot, Predicate filter, List<String> columns,
      RowConsumer consumer) {
    StructType schema = snapshot.getSchema();
    List<StructField> fields = new ArrayList<>();
    for (String c : columns) {
      fields.add(schema.get(c));
    }
    Scan scan = snapshot.getScanBuilder().withFilter(filter).withReadSchema(new StructType(fields))
        .build();
    Row scanState = scan.getScanState(engine);
    StructType physical = ScanStateRow.getPhysicalDataReadSchema(scanState);
    try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
      while (files.hasNext()) {
        try (CloseableIterator<Row> fileRows = files.next().getRows()) {
          while (fileRows.hasNext()) {
            Row scanFile = fileRows.next();
            FileStatus status = InternalScanFileUtils.getAddFileStatus(scanFile);
            CloseableIterator<ColumnarBatch> data = engine.getParquetHandler()
                .readParquetFiles(Utils.singletonCloseableIterator(status), physical,
                    Optional.empty())
                .map(FileReadResult::getData);
            try (CloseableIterator<FilteredColumnarBatch> logical =
                Scan.transformPhysicalData(engine, scanState, scanFile, data)) {
              while (logical.hasNext()) {
                try (CloseableIterator<Row> rows = logical.next().getRows()) {
                  while (rows.hasNext()) {
                    consumer.accept(rows.next());
                  }
                }
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading checkpoints table " + tablePath + ": "
          + e.getMessage(), e);
    }
  }

  private static Predicate eq(String column, Literal value) {
    return new Predicate("=", new Column(column), value);
  }

  private static Predicate and(Predicate a, Predicate b) {
    return b == null ? a : new io.delta.kernel.expressions.And(a, b);
  }
}
