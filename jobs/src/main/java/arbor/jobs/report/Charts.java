package arbor.jobs.report;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * XChart line charts over steps (or epochs), whose x axis is labelled at whole numbers only: a
 * step is a count, and "0.2" between step 0 and step 1 means nothing.
 */
final class Charts {
  private Charts() {}

  static final int WIDTH = 900;
  static final int HEIGHT = 480;

  /**
   * The x axis label of a tick at {@code x}: the whole number, or nothing between two whole numbers.
   * XChart drops a tick spacing whose labels repeat, so blank labels also push it to whole steps.
   */
  static String wholeNumberLabel(double x) {
    return x == Math.rint(x) ? Long.toString((long) x) : "";
  }

  /** A chart of one line per entry of {@code lines} (x: the step or epoch, y: the value). */
  static XYChart lines(String title, String xTitle, String yTitle, Map<String, TreeMap<Long, Double>> lines,
      int width, int height) {
    XYChart chart = new XYChartBuilder().width(width).height(height).title(title)
        .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    chart.setCustomXAxisTickLabelsFormatter(Charts::wholeNumberLabel);
    chart.getStyler().setYAxisDecimalPattern("0.###");
    chart.getStyler().setLegendVisible(lines.size() > 1);
    chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    for (var e : lines.entrySet()) {
      if (!e.getValue().isEmpty()) add(chart, e.getKey(), e.getValue());
    }
    if (chart.getSeriesMap().isEmpty()) {
      // XChart refuses an empty chart; an explicit placeholder says there is nothing yet.
      chart.addSeries("no data yet", new double[] {0}, new double[] {0});
      chart.getStyler().setLegendVisible(true);
    }
    return chart;
  }

  static XYSeries add(XYChart chart, String name, TreeMap<Long, Double> points) {
    double[] x = points.keySet().stream().mapToDouble(Long::doubleValue).toArray();
    double[] y = points.values().stream().mapToDouble(Double::doubleValue).toArray();
    return chart.addSeries(name, x, y);
  }

  /**
   * Adds a line of means with a vertical bar from {@code low} to {@code high} at each of its
   * steps (XChart's error bars are symmetric; a percentile interval need not be).
   */
  static void addWithIntervals(XYChart chart, String name, TreeMap<Long, double[]> meanLowHigh, Color color) {
    TreeMap<Long, Double> means = new TreeMap<>();
    meanLowHigh.forEach((step, m) -> means.put(step, m[0]));
    XYSeries line = add(chart, name + " (95% interval)", means);
    line.setLineColor(color);
    line.setMarkerColor(color);
    line.setMarker(SeriesMarkers.CIRCLE);
    meanLowHigh.forEach((step, m) -> {
      XYSeries bar = chart.addSeries(name + " interval at " + step, new double[] {step, step}, new double[] {m[1], m[2]});
      bar.setLineColor(color);
      bar.setMarker(SeriesMarkers.NONE);
      bar.setShowInLegend(false);
    });
  }

  static Path save(XYChart chart, Path file) throws IOException {
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return file;
  }

  /** The charts side by side, {@code columns} to a row, as one PNG. */
  static Path grid(List<XYChart> charts, int columns, Path file) throws IOException {
    int w = charts.getFirst().getWidth();
    int h = charts.getFirst().getHeight();
    int rows = (charts.size() + columns - 1) / columns;
    BufferedImage image = new BufferedImage(w * columns, h * rows, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, image.getWidth(), image.getHeight());
    for (int i = 0; i < charts.size(); i++) {
      g.drawImage(BitmapEncoder.getBufferedImage(charts.get(i)), (i % columns) * w, (i / columns) * h, null);
    }
    g.dispose();
    ImageIO.write(image, "png", file.toFile());
    return file;
  }
}
