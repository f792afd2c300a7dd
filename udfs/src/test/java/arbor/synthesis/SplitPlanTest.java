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

  private static SplitPlan.Candidate q(String id, String group, String question, Evidence... evidence) {
    return new SplitPlan.Candidate(id, group, SplitPlan.keys(question, List.of(evidence)));
  }

  @Test
  void overlappingGroupsNeverPutAnEvidenceParagraphOrAQuestionIntoTwoSplits() {
    // Groups that overlap: the same paper's paragraph is evidence in many groups, and one question
    // is asked in two. With room for 2 validation, 2 test and 2 sft queries, the groups fall into
    // different splits, so the shared queries must go with the first or be dropped.
    Evidence shared = new Evidence("p1", "A paragraph of p1 that several groups use.");
    List<SplitPlan.Candidate> queries = new java.util.ArrayList<>();
    for (int g = 0; g < 12; g++) {
      queries.add(q("own" + g, "g" + g, "Own question " + g + "?", new Evidence("p" + (g + 10), "Own paragraph " + g)));
      queries.add(q("shared" + g, "g" + g, "Shared question " + g + "?", shared, new Evidence("p" + (g + 10), "Other " + g)));
    }
    queries.add(q("same-question-a", "g0", "What is asked twice?", new Evidence("x", "X.")));
    queries.add(q("same-question-b", "g5", "what  is asked TWICE?", new Evidence("y", "Y.")));
    SplitPlan.Plan plan = SplitPlan.assign(queries, Map.of(), Map.of(), new SplitSettings(2, 2, 2, ALL));
    Map<String, String> splitOfKey = new HashMap<>();
    for (SplitPlan.Candidate c : queries) {
      String split = plan.splits().get(c.queryId());
      if (split == null) {
        assertTrue(plan.dropped().get(c.queryId()).contains("with a query of split"), plan.dropped().toString());
        continue;
      }
      for (String key : c.keys()) {
        String before = splitOfKey.putIfAbsent(key, split);
        assertTrue(before == null || before.equals(split), key + " in " + before + " and " + split);
      }
    }
    assertTrue(plan.splits().values().containsAll(List.of("train", "validation", "test", "sft")), plan.splits().toString());
    assertEquals(11, plan.dropped().keySet().stream().filter(k -> k.startsWith("shared")).count(),
        "the shared paragraph stays with the first group that took it: " + plan.dropped());
    assertEquals(1, plan.dropped().keySet().stream().filter(k -> k.startsWith("same-question")).count()
        + (plan.splits().get("same-question-a").equals(plan.splits().get("same-question-b")) ? 1 : 0));
  }

  @Test
  void aKeyTakenByAnEarlierRunKeepsItsSplit() {
    Evidence e = new Evidence("p", "Evidence in the sft split already.");
    Map<String, String> taken = new HashMap<>();
    SplitPlan.keys("Old question?", List.of(e)).forEach(k -> taken.put(k, "sft"));
    SplitPlan.Plan plan = SplitPlan.assign(List.of(q("new", "g-new", "New question?", e)), taken, Map.of("sft", 1L),
        new SplitSettings(0, 0, 5, ALL));
    assertEquals("sft", plan.splits().get("new"), "the group goes where its evidence already is");
    SplitPlan.Plan full = SplitPlan.assign(List.of(q("new", "g-new", "New question?", e), q("other", "g-new", "Other?", new Evidence("p", "Other."))),
        taken, Map.of("sft", 5L), new SplitSettings(0, 0, 5, ALL));
    assertEquals("train", full.splits().get("other"), "sft is full, so the group is train...");
    assertTrue(full.dropped().get("new").startsWith("shares its evidence with a query of split sft"), "...and the sft evidence is not reused");
  }
}
