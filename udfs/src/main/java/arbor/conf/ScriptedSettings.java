package arbor.conf;

import java.io.Serializable;
import java.util.Locale;

/**
 * The {@code scripted} policy: which expert program writes the trees.
 *
 * @param program {@code keywords}: keyword searches, sentences cut with {@code extract_section}
 *     (three turns a node); {@code passages}: whole passages ranked by the question's words, two
 *     short turns a node, the teacher a from-scratch student can imitate (conf/learning.conf)
 */
public record ScriptedSettings(String program) implements Serializable {
  public ScriptedSettings {
    program = program.toLowerCase(Locale.ROOT);
    if (!program.equals("keywords") && !program.equals("passages")) {
      throw new IllegalArgumentException("policy.scripted.program must be keywords or passages, got '" + program + "'");
    }
  }

  public boolean passages() {
    return program.equals("passages");
  }
}
