package arbor.synthesis;

import static org.junit.jupiter.api.Assertions.*;

import arbor.conf.SplitSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SplitPlanTest {
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
    Map<String, Long> s = sizes(groups, SplitPlan.assign(groups, Map.of(), new SplitSettings(10, 12, 5)));
    assertEquals(Map.of("validation", 10L, "test", 12L, "sft", 5L, "train", 13L), s);
  }

  @Test
  void aSplitIsNeverOverfilledByAGroup() {
    // Groups of 3 into a validation split of 10: three groups (9), the fourth would pass 10.
    var groups = groups(20, 3);
    Map<String, Long> s = sizes(groups, SplitPlan.assign(groups, Map.of(), new SplitSettings(10, 10, 4)));
    assertEquals(9L, s.get("validation"));
    assertEquals(9L, s.get("test"));
    assertEquals(3L, s.get("sft"));
  }

  @Test
  void theAssignmentDependsOnTheGroupsNotOnTheirOrder() {
    var groups = groups(30, 2);
    var reversed = new ArrayList<>(groups);
    java.util.Collections.reverse(reversed);
    SplitSettings sizes = new SplitSettings(4, 6, 4);
    assertEquals(SplitPlan.assign(groups, Map.of(), sizes), new HashMap<>(SplitPlan.assign(reversed, Map.of(), sizes)));
  }

  @Test
  void splitsFilledByAnEarlierRunTakeNoMoreGroups() {
    var groups = groups(10, 1);
    Map<String, String> plan = SplitPlan.assign(groups, Map.of("validation", 10L, "test", 12L, "sft", 5L), new SplitSettings(10, 12, 5));
    assertTrue(plan.values().stream().allMatch("train"::equals), plan.toString());
  }
}
