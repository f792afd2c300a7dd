package arbor.jobs.view;

import arbor.text.NormalizedText;
import java.util.List;

/**
 * Which predicted spans touch the ground truth and which evidence a prediction found: two
 * texts match when, reduced as the judge reduces them (case, punctuation, ligatures and line
 * breaks aside), one lies inside the other. A reading aid beside the judge's span F1, which
 * counts characters.
 */
record EvidenceMarks(boolean[] evidenceFound, boolean[] spanOnEvidence) {

  static EvidenceMarks of(List<String> evidence, List<String> spans) {
    boolean[] found = new boolean[evidence.size()];
    boolean[] on = new boolean[spans.size()];
    for (int i = 0; i < evidence.size(); i++) {
      NormalizedText e = NormalizedText.of(evidence.get(i));
      for (int j = 0; j < spans.size(); j++) {
        NormalizedText p = NormalizedText.of(spans.get(j));
        if (p.text().isEmpty() || e.text().isEmpty()) continue;
        if (e.find(p.text()).isPresent() || p.find(e.text()).isPresent()) {
          found[i] = true;
          on[j] = true;
        }
      }
    }
    return new EvidenceMarks(found, on);
  }
}
