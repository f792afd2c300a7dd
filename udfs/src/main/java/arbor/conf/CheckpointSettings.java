package arbor.conf;

import java.io.Serializable;

/**
 * How checkpoints are laid out in the {@code checkpoints} table.
 *
 * @param chunkMib the most bytes of one row's binary column, in MiB
 * @param commitMib the most chunk bytes one Delta commit writes; a larger checkpoint is written
 *     in several data commits and made visible by a final manifest commit
 */
public record CheckpointSettings(int chunkMib, int commitMib) implements Serializable {

  public CheckpointSettings {
    if (chunkMib < 1 || chunkMib > 1024) {
      throw new IllegalArgumentException("checkpoints.chunk_mib must be 1..1024, got " + chunkMib);
    }
    if (commitMib < chunkMib) {
      throw new IllegalArgumentException("checkpoints.commit_mib (" + commitMib
          + ") must be at least checkpoints.chunk_mib (" + chunkMib + ")");
    }
  }

  public int chunkBytes() {
    return chunkMib << 20;
  }

  public long commitBytes() {
    return (long) commitMib << 20;
  }
}
