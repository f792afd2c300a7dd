package arbor.synthesis;

import static org.junit.jupiter.api.Assertions.*;

import arbor.conf.SplitSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SplitPlanTest {
  private static final SplitSettings.Shares ALL = new SplitSettings.Shares(1, 1, 1);

  private static List<SplitPlan.GroupQueries> groups(int n, long each) {
    List<SplitPlan.GroupQueries> out = new ArrayList<>();
    for (int i = 0; i < n; i++) out.add(new SplitPlan.GroupQueries("g-" + i, each));
    return out;
  }

  private static Map<String, Long> sizes(List<SplitPlan.GroupQueries> groups, Map<String, String> plan) {
    Map<String, Long> out = new HashMap<>();
    groups.forEach(g -> out.merge(plan.get(g.groupId()), g.queries(), Long::sum));
    return out;
  }

  @Test
  void fixedSplitsFillToTheirSizeWithWholeGroupsAndTheRestIsTrain() {
    // 40 groups of 1 query: validation 10, test 12, sft 5, train 13 exactly.
    var groups = groups(40, 1);
    Map<String, Long> s = sizes(groups, SplitPlan.assign(groups, Map.of(), new SplitSettings(10, 12, 5, ALL)));
    assertEquals(Map.of("validation", 10L, "test", 12L, "sft", 5L, "train", 13L), s);
  }

  @Test
  void aSplitIsNeverOverfilledByAGroup() {
    // Groups of 3 into a validation split of 10: three groups (9), the fourth would pass 10.
    var groups = groups(20, 3);
    Map<String, Long> s = sizes(groups, SplitPlan.assign(groups, Map.of(), new SplitSettings(10, 10, 4, ALL)));
    assertEquals(9L, s.get("validation"));
    assertEquals(9L, s.get("test"));
    assertEquals(3L, s.get("sft"));
  }

  @Test
  void theAssignmentDependsOnTheGroupsNotOnTheirOrder() {
    var groups = groups(30, 2);
    var reversed = new ArrayList<>(groups);
    java.util.Collections.reverse(reversed);
    SplitSettings sizes = new SplitSettings(4, 6, 4, ALL);
    assertEquals(SplitPlan.assign(groups, Map.of(), sizes), new HashMap<>(SplitPlan.assign(reversed, Map.of(), sizes)));
  }

  @Test
  void splitsFilledByAnEarlierRunTakeNoMoreGroups() {
    var groups = groups(10, 1);
    Map<String, String> plan = SplitPlan.assign(groups, Map.of("validation", 10L, "test", 12L, "sft", 5L), new SplitSettings(10, 12, 5, ALL));
    assertTrue(plan.values().stream().allMatch("train"::equals), plan.toString());
  }

  @Test
  void aSmallDatasetKeepsATrainSplitBecauseFixedSplitsAreCappedByTheirShare() {
    // The demo: 32 groups of 3 = 96 queries, sizes 10 / 128 / 32 with shares 0.1 / 0.2 / 0.1:
    // validation room min(10, ceil(9.6)) = 10 -> 3 groups (9); test min(128, ceil(19.2)) = 20 ->
    // 6 groups (18); sft min(32, 10) = 10 -> 9; train the other 60.
    var groups = groups(32, 3);
    var plan = SplitPlan.assign(groups, Map.of(), new SplitSettings(10, 128, 32, new SplitSettings.Shares(0.1, 0.2, 0.1)));
    assertEquals(Map.of("validation", 9L, "test", 18L, "sft", 9L, "train", 60L), sizes(groups, plan));
  }

  @Test
  void theShareCountsTheQueriesOfEarlierRunsToo() {
    // 90 queries already (none in test), 30 new groups of 1: total 120, test room ceil(0.2 * 120) = 24.
    var groups = groups(30, 1);
    var plan = SplitPlan.assign(groups, Map.of("train", 90L), new SplitSettings(0, 128, 0, new SplitSettings.Shares(0, 0.2, 0)));
    assertEquals(24L, sizes(groups, plan).get("test"));
  }
}
