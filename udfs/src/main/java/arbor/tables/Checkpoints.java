package arbor.tables;

import static arbor.tables.Cols.*;

import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code checkpoints}: the training state of a run at a step as chunked binary rows. Key: run_id,
 * step, tensor, chunk (within one {@link #WRITE_ID}). Partitioned by run_id, step and kind
 * ({@link #PARTITIONS}), so one checkpoint is one folder of files, and a reader that needs only
 * the weights (an executor) or only the manifests (finding the latest step) opens nothing else.
 *
 * <p>A checkpoint is visible only through its {@link Kind#MANIFEST} row, written in the commit
 * that completes it: rows of a save that never wrote its manifest (a crash mid-save) are ignored
 * by every reader, and a later save of the same step deletes them in its own final commit.
 * Tensors are little-endian F32 bytes, split into chunks of at most the configured size; every
 * row of a tensor carries the SHA-256 of the whole tensor, checked on load.
 */
public final class Checkpoints {
  private Checkpoints() {}

  /** The tensor or file name: an HF weight name, an optimizer state name, a file name. */
  public static final String TENSOR = "tensor";
  /** 0..chunks-1 in byte order. */
  public static final String CHUNK = "chunk";
  public static final String CHUNKS = "chunks";
  /** One save attempt; the manifest names the attempt whose rows make the checkpoint. */
  public static final String WRITE_ID = "write_id";
  /** A {@link Kind} name. */
  public static final String KIND = "kind";
  /** {@code F32} for tensors, {@code BYTES} for files and state. */
  public static final String DTYPE = "dtype";
  public static final String SHAPE = "shape";
  /** Hex SHA-256 of the whole tensor's bytes (all chunks, in order). */
  public static final String SHA256 = "sha256";
  public static final String DATA = "data";
  public static final String AT = "at";
  /** The manifest's JSON on the manifest row (null on data rows), beside, not in, the bytes. */
  public static final String MANIFEST = "manifest";

  public static final String[] PARTITIONS = {RUN_ID, STEP, KIND};

  /** The tensor name of the manifest row. */
  public static final String MANIFEST_NAME = "__manifest__";

  /** What a row holds. */
  public enum Kind {
    /** An F32 master weight, named as in the HF folder. */
    WEIGHT,
    /** An optimizer state tensor (moments), named by the learner. */
    OPTIMIZER,
    /** A file of the model folder (config.json, tokenizer files, chat template). */
    FILE,
    /** Small opaque state: the optimizer's JSON state, the RNG state. */
    STATE,
    /** The JSON list of every entry of the checkpoint; its presence makes the checkpoint complete. */
    MANIFEST
  }

  public static final StructType SCHEMA = new StructType()
      .add(RUN_ID, DataTypes.StringType, false)
      .add(STEP, DataTypes.LongType, false)
      .add(TENSOR, DataTypes.StringType, false)
      .add(CHUNK, DataTypes.IntegerType, false)
      .add(CHUNKS, DataTypes.IntegerType, false)
      .add(WRITE_ID, DataTypes.StringType, false)
      .add(KIND, DataTypes.StringType, false)
      .add(DTYPE, DataTypes.StringType, false)
      .add(SHAPE, DataTypes.createArrayType(DataTypes.LongType, false), false)
      .add(SHA256, DataTypes.StringType, false)
      .add(AT, DataTypes.TimestampType, false)
      .add(MANIFEST, DataTypes.StringType, true)
      // Last: Delta collects statistics on leading columns, and none are useful on the bytes.
      .add(DATA, DataTypes.BinaryType, false);
}
