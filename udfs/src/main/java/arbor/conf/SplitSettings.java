package arbor.conf;

import java.io.Serializable;

/**
 * Query counts of the fixed splits; every other query is {@code train}. Whole groups go to one
 * split, so splits never share a group.
 */
public record SplitSettings(int validation, int test, int sft) implements Serializable {}
