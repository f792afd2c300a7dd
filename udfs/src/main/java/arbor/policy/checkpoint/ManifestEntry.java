package arbor.policy.checkpoint;

import arbor.tables.Checkpoints.Kind;

/** What the manifest says about one entry of a checkpoint: enough to check it on load. */
public record ManifestEntry(String name, Kind kind, String dtype, long[] shape, long bytes,
    int chunks, String sha256) {}
