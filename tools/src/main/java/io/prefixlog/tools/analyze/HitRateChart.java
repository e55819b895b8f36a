package io.prefixlog.tools.analyze;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javax.imageio.ImageIO;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A hit-rate chart (y: 0–100 %) drawn by XChart: lines (solid, dashed, dotted; a NaN breaks a
 * line), horizontal and vertical reference lines in the legend, marked points with their labels, on
 * a log capacity axis (with the KV bytes a capacity holds next to each tick) or a UTC time axis. A
 * subtitle above and a note below the plot frame the picture as the analysis report reads. One per
 * picture; {@link #write} renders it as PNG.
 */
final class HitRateChart {
  static final int WIDTH = 1280;
  static final int HEIGHT = 760;

  /** A colour-blind-safe palette (Okabe–Ito), darkest first. */
  static final Color[] PALETTE = {
    new Color(0x0072B2), // blue
    new Color(0xD55E00), // vermillion
    new Color(0x009E73), // green
    new Color(0xCC79A7), // purple
    new Color(0xE69F00), // orange
    new Color(0x56B4E9), // sky
    new Color(0x000000)
  };

  static final Color ENGINE = new Color(0x555555);

  private static final Color TEXT = new Color(0x222222);
  private static final Color MUTED = new Color(0x666666);
  private static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 22);
  private static final Font CAPTION = new Font(Font.SANS_SERIF, Font.PLAIN, 14);
  private static final int MARGIN = 24;

  /** Title and subtitle above XChart's picture, the note below it. */
  private static final int HEADER = 66;

  private static final int FOOTER = 46;
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);

  /** How a line is drawn. */
  enum Style {
    SOLID,
    DASHED,
    DOTTED
  }

  private final XYChart chart;
  private final String title;
  private final String subtitle;
  private final double xMin;
  private final double xMax;
  private final boolean logX;
  private String note;
  private int hidden;

  private HitRateChart(
      String title,
      String subtitle,
      String xTitle,
      String yTitle,
      double xMin,
      double xMax,
      boolean logX) {
    this.title = Objects.requireNonNull(title, "title");
    this.subtitle = Objects.requireNonNull(subtitle, "subtitle");
    this.xMin = xMin;
    this.xMax = xMax;
    this.logX = logX;
    this.chart =
        new XYChartBuilder()
            .width(WIDTH)
            .height(HEIGHT - HEADER - FOOTER)
            .xAxisTitle(xTitle)
            .yAxisTitle(yTitle)
            .build();
    XYStyler s = chart.getStyler();
    s.setChartBackgroundColor(Color.WHITE);
    s.setPlotBackgroundColor(Color.WHITE);
    s.setPlotBorderColor(TEXT);
    s.setPlotGridLinesColor(new Color(0xE4E4E4));
    s.setChartFontColor(TEXT);
    s.setAxisTickLabelsColor(TEXT);
    s.setChartTitleVisible(false);
    s.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    s.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    s.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
    s.setLegendBorderColor(new Color(0xCCCCCC));
    s.setAnnotationTextFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    s.setMarkerSize(10);
    s.setXAxisMin(xMin);
    s.setXAxisMax(xMax);
    s.setYAxisMin(0.0);
    s.setYAxisMax(1.0);
    s.setYAxisDecimalPattern("0%");
    s.setChartPadding(MARGIN / 2);
  }

  /**
   * Hit rate against cache capacity on a log axis, ticks at the powers of ten. (A tick-label
   * function would make XChart 3.8 place linear ticks on the log axis: the KV bytes a capacity
   * holds go into the axis title and the marks' labels instead.)
   */
  static HitRateChart overCapacity(
      String title, String subtitle, String xTitle, String yTitle, double min, double max) {
    HitRateChart c = new HitRateChart(title, subtitle, xTitle, yTitle, min, max, true);
    XYStyler s = c.chart.getStyler();
    s.setXAxisLogarithmic(true);
    s.setXAxisDecimalPattern("#,##0");
    s.setLegendPosition(Styler.LegendPosition.InsideSE);
    return c;
  }

  /** Hit rate over time (epoch milliseconds, shown as UTC clock times). */
  static HitRateChart overTime(
      String title, String subtitle, String xTitle, String yTitle, long startMs, long endMs) {
    HitRateChart c =
        new HitRateChart(
            title, subtitle, xTitle, yTitle, startMs, Math.max(endMs, startMs + 1), false);
    XYStyler s = c.chart.getStyler();
    s.setxAxisTickLabelsFormattingFunction(v -> CLOCK.format(Instant.ofEpochMilli(v.longValue())));
    s.setLegendPosition(Styler.LegendPosition.InsideNW);
    return c;
  }

  HitRateChart line(String label, Color color, Style style, double[] xs, double[] ys) {
    XYSeries series = chart.addSeries(label, xs, ys);
    series.setLineColor(color);
    series.setLineStyle(stroke(style));
    series.setMarker(SeriesMarkers.NONE);
    return this;
  }

  /** A dashed line across the plot at {@code value}, in the legend. */
  HitRateChart horizontal(String label, Color color, double value) {
    return line(label, color, Style.DASHED, new double[] {xMin, xMax}, new double[] {value, value});
  }

  /** A dashed line from bottom to top at {@code value}, in the legend. */
  HitRateChart vertical(String label, Color color, double value) {
    return line(label, color, Style.DASHED, new double[] {value, value}, new double[] {0, 1});
  }

  /** A point drawn as a ring, with its label below and to the right (not in the legend). */
  HitRateChart mark(String label, Color color, double x, double y) {
    XYSeries series = chart.addSeries("mark " + hidden++, new double[] {x}, new double[] {y});
    series.setMarker(SeriesMarkers.CIRCLE);
    series.setMarkerColor(color);
    series.setLineStyle(SeriesLines.NONE);
    series.setShowInLegend(false);
    // The label's centre, placed so that it starts right of the point on either kind of axis.
    double right = logX ? x * Math.pow(xMax / xMin, 0.07) : x + (xMax - xMin) * 0.07;
    chart.addAnnotation(new AnnotationText(label, right, Math.max(0.02, y - 0.04), false));
    return this;
  }

  /** A sentence under the plot. */
  HitRateChart note(String text) {
    this.note = text;
    return this;
  }

  void write(Path file) throws IOException {
    ImageIO.write(render(), "png", file.toFile());
  }

  /** XChart's picture, with the title and subtitle above it and the note below. */
  BufferedImage render() {
    BufferedImage plot = BitmapEncoder.getBufferedImage(chart);
    BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(
          RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, WIDTH, HEIGHT);
      g.drawImage(plot, 0, HEADER, null);
      g.setColor(TEXT);
      g.setFont(TITLE);
      g.drawString(title, MARGIN, 32);
      g.setColor(MUTED);
      g.setFont(CAPTION);
      FontMetrics m = g.getFontMetrics();
      drawLines(g, wrap(subtitle, m).subList(0, 1), 56);
      if (note != null) {
        List<String> lines = wrap(note, m);
        drawLines(g, lines.subList(0, Math.min(2, lines.size())), HEIGHT - FOOTER + 16);
      }
    } finally {
      g.dispose();
    }
    return image;
  }

  /** The series XChart holds, by name (tests). */
  List<String> seriesNames() {
    return new ArrayList<>(chart.getSeriesMap().keySet());
  }

  private static void drawLines(Graphics2D g, List<String> lines, int baseline) {
    int y = baseline;
    for (String line : lines) {
      g.drawString(line, MARGIN, y);
      y += g.getFontMetrics().getHeight();
    }
  }

  /** Words wrapped to the picture's width. */
  private static List<String> wrap(String text, FontMetrics m) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      String candidate = line.isEmpty() ? word : line + " " + word;
      if (m.stringWidth(candidate) > WIDTH - 2 * MARGIN && !line.isEmpty()) {
        lines.add(line.toString());
        line = new StringBuilder(word);
      } else {
        line = new StringBuilder(candidate);
      }
    }
    if (!line.isEmpty()) {
      lines.add(line.toString());
    }
    return lines;
  }

  private static BasicStroke stroke(Style style) {
    return switch (style) {
      case SOLID -> new BasicStroke(2.2f);
      case DASHED ->
          new BasicStroke(
              2.2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, new float[] {8f, 5f}, 0f);
      case DOTTED ->
          new BasicStroke(
              2.2f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 10f, new float[] {1f, 5f}, 0f);
    };
  }
}
