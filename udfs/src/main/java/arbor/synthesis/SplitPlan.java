package arbor.synthesis;

import arbor.conf.SplitSettings;
import arbor.text.Hashes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Assigns groups to splits so that nothing leaks. Groups are taken in the order of a stable hash
 * of their id; each goes to the first of {@code validation}, {@code test}, {@code sft} that still
 * has room for all its queries, else to {@code train}. A fixed split's room is its size, capped by
 * its share of all queries (those of earlier runs and these). Groups assigned earlier keep their
 * split.
 *
 * <p>Groups overlap, so two groups can hold the same question or the same evidence paragraph.
 * Each query has keys: its question, and each of its evidence paragraphs. A key belongs to the
 * split of the first query that took it (an earlier run's, else the first group's in hash order);
 * a group whose keys already belong to a split goes there when that split has room, and a query
 * with a key of another split is dropped with the reason. So no question and no evidence
 * paragraph is ever in two splits, and {@code sft} shares none with the RL splits.
 */
public final class SplitPlan {
  private SplitPlan() {}

  public static final String TRAIN = "train";
  public static final String VALIDATION = "validation";
  public static final String TEST = "test";
  public static final String SFT = "sft";
  private static final List<String> FIXED = List.of(VALIDATION, TEST, SFT);

  /** A group and how many queries it has. */
  public record GroupQueries(String groupId, long queries) {}

  /** A new query to place: its id, group and keys ({@link #keys}). */
  public record Candidate(String queryId, String groupId, Set<String> keys) {}

  /** query id -> split for the placed; query id -> why, for the dropped. */
  public record Plan(Map<String, String> splits, Map<String, String> dropped) {}

  /** A query's keys: its question (case and spacing aside) and each evidence paragraph (paper and text). */
  public static Set<String> keys(String question, List<Evidence> evidence) {
    Set<String> keys = new LinkedHashSet<>();
    keys.add("question\u0000" + question.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT));
    for (Evidence e : evidence) keys.add("evidence\u0000" + e.paperId() + "\u0000" + e.text().strip());
    return keys;
  }

  /**
   * @param taken key -> split, of the queries already in the table
   * @param existing query counts already in each split
   */
  public static Plan assign(List<Candidate> queries, Map<String, String> taken, Map<String, Long> existing, SplitSettings sizes) {
    long total = existing.values().stream().mapToLong(Long::longValue).sum() + queries.size();
    Map<String, Long> room = new LinkedHashMap<>();
    for (String split : FIXED) room.put(split, sizes.cap(split, total) - existing.getOrDefault(split, 0L));
    Map<String, List<Candidate>> groups = new TreeMap<>(Comparator.comparing((String g) -> Hashes.sha256(g)).thenComparing(g -> g));
    for (Candidate q : queries) groups.computeIfAbsent(q.groupId(), g -> new ArrayList<>()).add(q);
    Map<String, String> owner = new HashMap<>(taken);
    Map<String, String> splits = new LinkedHashMap<>();
    Map<String, String> dropped = new LinkedHashMap<>();
    for (List<Candidate> group : groups.values()) {
      String split = choose(group, owner, room);
      for (Candidate q : group) {
        String clash = q.keys().stream().filter(k -> owner.containsKey(k) && !owner.get(k).equals(split)).findFirst().orElse(null);
        if (clash != null) {
          dropped.put(q.queryId(), "shares its " + clash.substring(0, clash.indexOf('\u0000')) + " with a query of split "
              + owner.get(clash) + " (" + q.groupId() + ")");
          continue;
        }
        q.keys().forEach(k -> owner.put(k, split));
        splits.put(q.queryId(), split);
        if (room.containsKey(split)) room.merge(split, -1L, Long::sum);
      }
    }
    return new Plan(splits, dropped);
  }

  /**
   * The split that a group's keys already point to most, when it has room for the group; else
   * the first fixed split with room; else train. (The queries whose keys point elsewhere are then
   * dropped by the caller.)
   */
  private static String choose(List<Candidate> group, Map<String, String> owner, Map<String, Long> room) {
    Map<String, Integer> votes = new TreeMap<>();
    for (Candidate q : group) q.keys().stream().map(owner::get).filter(s -> s != null).distinct().forEach(s -> votes.merge(s, 1, Integer::sum));
    String best = votes.entrySet().stream().max(Map.Entry.<String, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder())))
        .map(Map.Entry::getKey).orElse(null);
    if (best != null && (!room.containsKey(best) || room.get(best) >= group.size())) return best;
    for (var r : room.entrySet()) if (r.getValue() >= group.size()) return r.getKey();
    return TRAIN;
  }

  /** group id -> split for groups without shared keys (each group's queries counted, none dropped). */
  public static Map<String, String> assign(List<GroupQueries> groups, Map<String, Long> existing, SplitSettings sizes) {
    List<Candidate> queries = new ArrayList<>();
    for (GroupQueries g : groups) {
      for (long i = 0; i < g.queries(); i++) queries.add(new Candidate(g.groupId() + "#" + i, g.groupId(), Set.of()));
    }
    Map<String, String> out = new LinkedHashMap<>();
    assign(queries, Map.of(), existing, sizes).splits().forEach((q, split) -> out.put(q.substring(0, q.lastIndexOf('#')), split));
    return out;
  }
}
