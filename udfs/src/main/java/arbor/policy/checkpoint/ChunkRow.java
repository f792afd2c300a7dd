package arbor.policy.checkpoint;

import arbor.tables.Checkpoints.Kind;

/**
 * One row of the {@code checkpoints} table, less the columns the writer adds (run, step, write
 * id, time): one chunk of one entry.
 */
public record ChunkRow(String tensor, int chunk, int chunks, Kind kind, String dtype,
    long[] shape, String sha256, byte[] data) {}
