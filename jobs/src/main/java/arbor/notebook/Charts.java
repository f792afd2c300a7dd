package arbor.notebook;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Charts for notebooks, drawn by XChart into PNG (no display needed). A chart reads a small,
 * already aggregated DataFrame (one row per point), which it collects to the driver.
 */
public final class Charts {
  private Charts() {}

  public static final int WIDTH = 720;
  public static final int HEIGHT = 360;

  /** A rendered chart: the PNG bytes, as an {@code <img>} for {@code display("text/html", ...)}. */
  public record Png(byte[] bytes) {
    public String html() {
      return "<img src=\"data:image/png;base64," + Base64.getEncoder().encodeToString(bytes) + "\"/>";
    }

    public BufferedImage image() {
      try {
        return ImageIO.read(new ByteArrayInputStream(bytes));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** One line of points, in x order. */
  public record Series(String name, List<Double> x, List<Double> y) {
    public Series {
      if (x.size() != y.size()) {
        throw new IllegalArgumentException("series '" + name + "' has " + x.size() + " x values and " + y.size() + " y values");
      }
    }
  }

  /**
   * A line per distinct value of {@code seriesColumn}, {@code y} against {@code x}: the shape of
   * the metrics table ({@code step}, {@code name}, {@code value}). Rows with a null x or y are
   * skipped.
   */
  public static Png lines(String title, Dataset<Row> df, String x, String seriesColumn, String y) {
    Map<String, List<double[]>> points = new LinkedHashMap<>();
    for (Row r : df.select(x, seriesColumn, y).orderBy(seriesColumn, x).collectAsList()) {
      if (r.isNullAt(0) || r.isNullAt(2)) continue;
      points.computeIfAbsent(String.valueOf(r.get(1)), k -> new ArrayList<>())
          .add(new double[] {((Number) r.get(0)).doubleValue(), ((Number) r.get(2)).doubleValue()});
    }
    List<Series> series = new ArrayList<>();
    points.forEach((name, ps) -> series.add(new Series(name,
        ps.stream().map(p -> p[0]).toList(), ps.stream().map(p -> p[1]).toList())));
    return lines(title, x, y, series);
  }

  public static Png lines(String title, String xLabel, String yLabel, List<Series> series) {
    if (series.isEmpty()) throw new IllegalArgumentException("chart '" + title + "' has no series (no rows?)");
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xLabel).yAxisTitle(yLabel).build();
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    // XChart's own pattern prints a lone tick as ".034908215467951".
    chart.getStyler().setYAxisDecimalPattern("0.###");
    for (Series s : series) {
      if (s.x().isEmpty()) continue;
      chart.addSeries(s.name(), s.x(), s.y()).setMarker(s.x().size() == 1 ? SeriesMarkers.CIRCLE : SeriesMarkers.NONE);
    }
    return png(chart);
  }

  /** A bar per row: {@code category} (any type, as text) against the number {@code value}. */
  public static Png bars(String title, Dataset<Row> df, String category, String value) {
    List<String> xs = new ArrayList<>();
    List<Number> ys = new ArrayList<>();
    for (Row r : df.select(category, value).collectAsList()) {
      xs.add(String.valueOf(r.get(0)));
      ys.add(r.isNullAt(1) ? 0 : (Number) r.get(1));
    }
    if (xs.isEmpty()) throw new IllegalArgumentException("chart '" + title + "' has no bars (no rows)");
    CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(category).yAxisTitle(value).build();
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    chart.getStyler().setLegendVisible(false);
    chart.addSeries(value, xs, ys);
    return png(chart);
  }

  private static Png png(Chart<?, ?> chart) {
    try {
      return new Png(BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG));
    } catch (IOException e) {
      throw new UncheckedIOException("could not encode the chart as PNG", e);
    }
  }
}
