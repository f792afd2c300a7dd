package arbor.synthesis;

import arbor.text.NormalizedText;
import org.apache.spark.sql.api.java.UDF3;
import scala.collection.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Whether one evidence text of a stored query still holds in its paper's current version: it is
 * verbatim in a clean paragraph and found in the noisy text. A Spark UDF over
 * {@code (text, clean_paragraphs, noisy_text)}: null when it holds, else why not (the paper id
 * is added by the caller). A missing paper (null paragraphs) does not hold.
 */
public final class EvidenceRecheck implements UDF3<String, Seq<String>, String, String> {
  public static final String GONE = "its paper is no longer in the papers table";
  public static final String NOT_VERBATIM = "evidence is no longer verbatim in the clean paragraphs";
  public static final String NOT_LOCATED = "evidence is not found in the noisy text";

  @Override
  public String call(String text, Seq<String> paragraphs, String noisy) {
    return problem(text, paragraphs == null ? null : CollectionConverters.asJava(paragraphs), noisy);
  }

  public static String problem(String text, java.util.List<String> paragraphs, String noisy) {
    if (paragraphs == null) return GONE;
    if (paragraphs.stream().noneMatch(p -> p.contains(text))) return NOT_VERBATIM;
    if (NormalizedText.of(noisy == null ? "" : noisy).locate(text).isEmpty()) return NOT_LOCATED;
    return null;
  }
}
