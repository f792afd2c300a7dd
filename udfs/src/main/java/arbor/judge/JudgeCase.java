package arbor.judge;

import arbor.synthesis.Evidence;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a judge reads for one root: the question, its ground-truth evidence (clean paragraphs of
 * some of the group's papers), the group's papers as the policy saw them (noisy text, by id, in
 * group order) and the spans the root submitted.
 */
public record JudgeCase(String question, List<Evidence> evidence, Map<String, String> papers, List<String> predicted)
    implements Serializable {
  public JudgeCase {
    evidence = List.copyOf(evidence);
    papers = new LinkedHashMap<>(papers);
    predicted = List.copyOf(predicted);
  }
}
