package arbor.conf;

import java.io.Serializable;

/**
 * How groups are formed: each seed paper plus up to {@code maxSize - 1} of its most similar
 * papers, found with locality-sensitive hashing (see {@code docs/dataset.md}).
 *
 * @param minSimilarity cosine similarity a neighbour needs to join a group
 * @param tieMargin similarities within this margin count as tied, and the higher-scored paper
 *     wins the tie
 * @param lshBucketLength MLlib's {@code BucketedRandomProjectionLSH} bucket length; on unit
 *     vectors a length of 1 or more makes each hash the side of a random hyperplane
 * @param lshHashesPerBand hashes that must all agree for two papers to share a band (AND)
 * @param lshBands bands; sharing any one makes two papers candidates (OR)
 */
public record GroupSettings(
    int maxSize,
    double minSimilarity,
    double tieMargin,
    double lshBucketLength,
    int lshHashesPerBand,
    int lshBands) implements Serializable {}
