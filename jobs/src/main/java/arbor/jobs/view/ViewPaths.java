package arbor.jobs.view;

import java.nio.file.Path;

/**
 * Where the rollout viewer puts its pages, so that other pages (the report) can link into it:
 * {@code reports/RUN/view/index.html}, one folder per step with its {@code index.html} and one
 * page per query, each tree of the query's group anchored as {@code #tree-SAMPLE}.
 */
public final class ViewPaths {
  private ViewPaths() {}

  /** The viewer's default folder for a run (an eval run has its own: {@code RUN-eval-djl-validation}). */
  public static Path defaultDir(String runId) {
    return Path.of("reports", runId, "view");
  }

  public static String stepPage(long step) {
    return "step-" + step + "/index.html";
  }

  /** The query's page in a step's folder, relative to the viewer's root. */
  public static String queryPage(long step, String queryId) {
    return "step-" + step + "/" + fileName(queryId) + ".html";
  }

  /** The query's page with the tree of sample {@code sample} in view. */
  public static String tree(long step, String queryId, int sample) {
    return queryPage(step, queryId) + "#tree-" + sample;
  }

  /** The page that sets the query's trees of every step side by side (queries seen in several steps). */
  public static String comparePage(String queryId) {
    return "compare/" + fileName(queryId) + ".html";
  }

  /** A file name for any id: letters, digits, '.', '-' and '_' kept, the rest as _XX (hex), so names never collide. */
  static String fileName(String id) {
    StringBuilder s = new StringBuilder();
    for (char c : id.toCharArray()) {
      if (Character.isLetterOrDigit(c) && c < 128 || c == '.' && s.length() > 0 || c == '-') s.append(c);
      else s.append('_').append(String.format("%02x", (int) c));
    }
    return s.toString();
  }
}
