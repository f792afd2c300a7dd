package arbor.judge;

import java.io.Serializable;

/**
 * A judge's answer for one root. {@code reward} is in [0, 1] and null when the judge failed
 * ({@code error} says how); {@code precision} and {@code recall} are on the judge's own scale
 * (1-10 for both judges, see {@link EmbeddedJudge}).
 */
public record Verdict(Double reward, Double precision, Double recall, String reasoning, String error)
    implements Serializable {

  public static Verdict scored(double precision, double recall, double reward, String reasoning) {
    return new Verdict(reward, precision, recall, reasoning, null);
  }

  public static Verdict failed(String error) {
    return new Verdict(null, null, null, null, error);
  }

  public boolean ok() {
    return error == null;
  }
}
