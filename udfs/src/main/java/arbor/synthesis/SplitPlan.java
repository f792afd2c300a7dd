package arbor.synthesis;

import arbor.conf.SplitSettings;
import arbor.ingest.Hashes;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Assigns whole groups to splits. Groups are taken in the order of a stable hash of their id;
 * each goes to the first of {@code validation}, {@code test}, {@code sft} that still has room for
 * all its queries, else to {@code train}. A fixed split's room is its size, capped by its share of
 * all queries (those of earlier runs and these). The splits therefore never share a group, and
 * groups assigned earlier (by an earlier run, counted in {@code existing}) keep their split.
 */
public final class SplitPlan {
  private SplitPlan() {}

  public static final String TRAIN = "train";
  public static final String VALIDATION = "validation";
  public static final String TEST = "test";
  public static final String SFT = "sft";

  /** A group and how many queries it has. */
  public record GroupQueries(String groupId, long queries) {}

  /** group id -> split, for {@code groups}; {@code existing} holds the query counts already in each split. */
  public static Map<String, String> assign(List<GroupQueries> groups, Map<String, Long> existing, SplitSettings sizes) {
    long total = existing.values().stream().mapToLong(Long::longValue).sum()
        + groups.stream().mapToLong(GroupQueries::queries).sum();
    Map<String, Long> room = new LinkedHashMap<>();
    for (String split : List.of(VALIDATION, TEST, SFT)) {
      room.put(split, sizes.cap(split, total) - existing.getOrDefault(split, 0L));
    }
    Map<String, String> out = new LinkedHashMap<>();
    groups.stream().sorted(Comparator.comparing((GroupQueries g) -> Hashes.sha256(g.groupId())).thenComparing(GroupQueries::groupId))
        .forEach(g -> {
          String split = TRAIN;
          for (var r : room.entrySet()) {
            if (r.getValue() >= g.queries()) {
              split = r.getKey();
              r.setValue(r.getValue() - g.queries());
              break;
            }
          }
          out.put(g.groupId(), split);
        });
    return out;
  }
}
