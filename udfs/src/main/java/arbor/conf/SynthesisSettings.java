package arbor.conf;

import java.io.Serializable;
import java.util.List;

/**
 * How {@code synthesize} and {@code refresh} turn papers into the evidence-selection dataset
 * (see {@code docs/dataset.md}).
 *
 * @param seed seeds every random choice (which papers seed groups, LSH projections), so a run is
 *     reproducible
 * @param targetQueries the dataset size {@code synthesize} aims for; it draws enough group seeds
 *     for it ({@code ceil(target / queries_per_group)})
 * @param queriesPerGroup at most this many queries per group, across all generators
 * @param generators the generators, in priority order: each group is filled from the first, then
 *     the next; {@code offline}, {@code human}, {@code llm}
 */
public record SynthesisSettings(
    long seed,
    int targetQueries,
    int queriesPerGroup,
    List<String> generators,
    EmbeddingSettings embedding,
    GroupSettings groups,
    SplitSettings splits,
    OfflineSettings offline,
    LlmSettings llm,
    RefreshSettings refresh) implements Serializable {}
