package arbor.rlm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import arbor.rlm.policy.NodePath;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TreeSeedTest {

  @Test
  void aTreesSeedIsAFunctionOfItsRunStepQueryAndSampleAlone() {
    assertEquals(TreeSeed.of("run-1", 3, "q7", 2), TreeSeed.of("run-1", 3, "q7", 2));
    Set<Long> seeds = new HashSet<>();
    for (String run : List.of("run-1", "run-2")) {
      for (long step = 0; step < 3; step++) {
        for (String query : List.of("q7", "q8", "q70")) {
          for (int sample = 0; sample < 8; sample++) {
            seeds.add(TreeSeed.of(run, step, query, sample));
          }
        }
      }
    }
    assertEquals(2 * 3 * 3 * 8, seeds.size(), "two trees of different coordinates share a seed");
  }

  @Test
  void everyNodeAndTurnOfATreeHasItsOwnSeed() {
    long tree = TreeSeed.of("run", 0, "q", 0);
    Set<Long> seeds = new HashSet<>();
    List<NodePath> paths = List.of(NodePath.ROOT, NodePath.ROOT.child(0), NodePath.ROOT.child(1),
        NodePath.ROOT.child(0).child(1), NodePath.ROOT.child(1).child(0), NodePath.ROOT.child(10));
    for (NodePath p : paths) {
      for (int turn = 0; turn < 7; turn++) {
        seeds.add(TreeSeed.turn(tree, p, turn));
      }
      for (int i = 0; i < 4; i++) {
        seeds.add(TreeSeed.llmQuery(tree, p, i));
      }
    }
    assertEquals(paths.size() * 11, seeds.size());
    assertEquals(TreeSeed.turn(tree, NodePath.parse("root.1.0"), 2), TreeSeed.turn(tree, NodePath.ROOT.child(1).child(0), 2));
  }
}
