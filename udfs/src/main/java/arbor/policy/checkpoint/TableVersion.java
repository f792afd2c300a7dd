package arbor.policy.checkpoint;

import java.io.Serializable;

/** Which version of the checkpoints table to read: the latest, or one by Delta time travel. */
public sealed interface TableVersion extends Serializable {

  /** The table as it is now. */
  record Latest() implements TableVersion {}

  /** The table as of Delta version {@code version} ({@code versionAsOf}). */
  record AsOfVersion(long version) implements TableVersion {}

  /** The table as of a time ({@code timestampAsOf}), in epoch milliseconds. */
  record AsOfTimestamp(long epochMillis) implements TableVersion {}

  TableVersion LATEST = new Latest();
}
