package arbor.notebook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChartsTest {
  private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

  @Test
  void aLineChartIsAPngOfTheConfiguredSizeThatEmbedsInHtml() {
    Charts.Png png = Charts.lines("reward", "step", "value", List.of(
        new Charts.Series("judge.reward_mean", List.of(0.0, 1.0, 2.0), List.of(0.1, 0.3, 0.2)),
        new Charts.Series("learner.kl", List.of(0.0, 1.0, 2.0), List.of(0.0, 0.01, 0.02))));
    assertTrue(Arrays.equals(PNG_MAGIC, Arrays.copyOf(png.bytes(), 8)), "PNG signature");
    BufferedImage image = png.image();
    assertEquals(Charts.WIDTH, image.getWidth());
    assertEquals(Charts.HEIGHT, image.getHeight());
    assertTrue(png.html().startsWith("<img src=\"data:image/png;base64,iVBORw0KGgo"), "base64 of the PNG signature");
  }

  @Test
  void aChartWithNoSeriesIsAnErrorThatNamesIt() {
    var e = assertThrows(IllegalArgumentException.class, () -> Charts.lines("kl", "step", "kl", List.of()));
    assertTrue(e.getMessage().contains("'kl'"), e.getMessage());
  }

  @Test
  void aSeriesWithUnevenCoordinatesIsRejected() {
    var e = assertThrows(IllegalArgumentException.class, () -> new Charts.Series("s", List.of(1.0, 2.0), List.of(1.0)));
    assertTrue(e.getMessage().contains("2 x values and 1 y values"), e.getMessage());
  }
}
