package io.prefixlog.tools.analyze;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Shape;
import java.awt.Stroke;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.imageio.ImageIO;

/**
 * A line chart drawn with Java2D: title and subtitle, two axes with ticks, grid and titles, lines
 * (solid or dashed), horizontal and vertical reference lines with labels, marked points, and a
 * legend. Written as PNG by {@link #write}. No state is shared: build one per picture.
 */
final class LineChart {
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

  private static final Color GRID = new Color(0xE4E4E4);
  private static final Color MINOR_GRID = new Color(0xF2F2F2);
  private static final Color TEXT = new Color(0x222222);
  private static final Color MUTED = new Color(0x666666);
  private static final Font LEGEND_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 14);
  private static final int LEGEND_SAMPLE = 36;

  /** How a line is drawn. */
  enum Style {
    SOLID,
    DASHED,
    DOTTED
  }

  private record Series(String label, Color color, Style style, double[] xs, double[] ys) {}

  private record Reference(String label, Color color, double value, boolean horizontal) {}

  private record Mark(String label, Color color, double x, double y) {}

  private final String title;
  private final String subtitle;
  private final ChartAxis x;
  private final ChartAxis y;
  private final List<Series> series = new ArrayList<>();
  private final List<Reference> references = new ArrayList<>();
  private final List<Mark> marks = new ArrayList<>();
  private String note;

  LineChart(String title, String subtitle, ChartAxis x, ChartAxis y) {
    this.title = Objects.requireNonNull(title, "title");
    this.subtitle = subtitle;
    this.x = Objects.requireNonNull(x, "x");
    this.y = Objects.requireNonNull(y, "y");
  }

  /** A line through the points (x ascending); NaN y values break it. */
  LineChart line(String label, Color color, Style style, double[] xs, double[] ys) {
    if (xs.length != ys.length) {
      throw new IllegalArgumentException(xs.length + " x values for " + ys.length + " y values");
    }
    series.add(new Series(label, color, style, xs.clone(), ys.clone()));
    return this;
  }

  /** A horizontal reference line at {@code value}, labelled at its right end and in the legend. */
  LineChart horizontal(String label, Color color, double value) {
    references.add(new Reference(label, color, value, true));
    return this;
  }

  /** A vertical reference line at {@code value}, labelled at its top. */
  LineChart vertical(String label, Color color, double value) {
    references.add(new Reference(label, color, value, false));
    return this;
  }

  /** A point marked with a dot and a short label. */
  LineChart mark(String label, Color color, double xValue, double yValue) {
    marks.add(new Mark(label, color, xValue, yValue));
    return this;
  }

  /** A line of small print under the plot. */
  LineChart note(String text) {
    this.note = text;
    return this;
  }

  void write(Path file) throws IOException {
    BufferedImage image = render();
    if (!ImageIO.write(image, "png", file.toFile())) {
      throw new IOException("no PNG writer in this Java runtime");
    }
  }

  BufferedImage render() {
    BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      draw(g);
    } finally {
      g.dispose();
    }
    return image;
  }

  private void draw(Graphics2D g) {
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(
        RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setRenderingHint(RenderingHints.KEY_STROKE_CONTROL, RenderingHints.VALUE_STROKE_PURE);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, WIDTH, HEIGHT);

    Font titleFont = new Font(Font.SANS_SERIF, Font.BOLD, 22);
    Font subtitleFont = new Font(Font.SANS_SERIF, Font.PLAIN, 15);
    Font tickFont = new Font(Font.SANS_SERIF, Font.PLAIN, 14);
    Font smallFont = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
    Font axisFont = new Font(Font.SANS_SERIF, Font.BOLD, 15);

    boolean secondRow = x.ticks().stream().anyMatch(t -> t.secondLabel() != null);
    int left = 92;
    int right = WIDTH - 40;
    List<String> noteLines =
        note == null ? List.of() : wrap(note, g.getFontMetrics(smallFont), right - left);
    int top = subtitle == null ? 64 : 88;
    int bottom = HEIGHT - (secondRow ? 104 : 84) - 17 * noteLines.size();
    int plotW = right - left;
    int plotH = bottom - top;

    g.setColor(TEXT);
    g.setFont(titleFont);
    g.drawString(title, left, 36);
    if (subtitle != null) {
      g.setFont(subtitleFont);
      g.setColor(MUTED);
      g.drawString(subtitle, left, 62);
    }

    // Grid and ticks.
    g.setFont(tickFont);
    FontMetrics tm = g.getFontMetrics();
    for (ChartAxis.Tick tick : y.ticks()) {
      int py = py(tick.value(), top, plotH);
      g.setColor(GRID);
      g.draw(new Line2D.Double(left, py, right, py));
      g.setColor(TEXT);
      g.drawString(
          tick.label(), left - 10 - tm.stringWidth(tick.label()), py + tm.getAscent() / 2 - 1);
    }
    for (ChartAxis.Tick tick : x.ticks()) {
      double f = x.fraction(tick.value());
      if (f < -1e-9 || f > 1 + 1e-9) {
        continue;
      }
      int px = (int) Math.round(left + f * plotW);
      g.setColor(tick.major() ? GRID : MINOR_GRID);
      g.draw(new Line2D.Double(px, top, px, bottom));
      g.setColor(TEXT);
      g.draw(new Line2D.Double(px, bottom, px, bottom + (tick.major() ? 6 : 3)));
      if (!tick.label().isEmpty()) {
        g.setFont(tickFont);
        g.drawString(
            tick.label(), px - tm.stringWidth(tick.label()) / 2, bottom + 8 + tm.getAscent());
      }
      if (tick.secondLabel() != null) {
        g.setFont(smallFont);
        FontMetrics sm = g.getFontMetrics();
        g.setColor(MUTED);
        g.drawString(
            tick.secondLabel(),
            px - sm.stringWidth(tick.secondLabel()) / 2,
            bottom + 10 + tm.getHeight() + sm.getAscent());
      }
    }
    g.setColor(TEXT);
    g.setStroke(new BasicStroke(1.2f));
    g.drawRect(left, top, plotW, plotH);

    // Axis titles.
    g.setFont(axisFont);
    FontMetrics am = g.getFontMetrics();
    int xTitleY = bottom + (secondRow ? 74 : 56);
    g.drawString(x.title(), left + (plotW - am.stringWidth(x.title())) / 2, xTitleY);
    Graphics2D rotated = (Graphics2D) g.create();
    rotated.rotate(-Math.PI / 2);
    rotated.drawString(y.title(), -(top + (plotH + am.stringWidth(y.title())) / 2), 24);
    rotated.dispose();
    g.setFont(smallFont);
    g.setColor(MUTED);
    for (int i = 0; i < noteLines.size(); i++) {
      g.drawString(noteLines.get(i), left, HEIGHT - 12 - 17 * (noteLines.size() - 1 - i));
    }

    // Plot contents, clipped to the frame.
    Graphics2D plot = (Graphics2D) g.create();
    plot.clipRect(left, top - 1, plotW + 1, plotH + 2);
    for (Reference r : references) {
      plot.setColor(r.color());
      plot.setStroke(stroke(Style.DASHED, 1.6f));
      if (r.horizontal()) {
        int py = py(r.value(), top, plotH);
        plot.draw(new Line2D.Double(left, py, right, py));
      } else {
        int px = (int) Math.round(left + x.fraction(r.value()) * plotW);
        plot.draw(new Line2D.Double(px, top, px, bottom));
      }
    }
    for (Series s : series) {
      plot.setColor(s.color());
      plot.setStroke(stroke(s.style(), s.style() == Style.SOLID ? 2.6f : 2.2f));
      plot.draw(path(s, left, top, plotW, plotH));
      // A point without a neighbour draws no line: show it as a dot.
      double[] ys = s.ys();
      for (int i = 0; i < ys.length; i++) {
        boolean alone =
            !Double.isNaN(ys[i])
                && (i == 0 || Double.isNaN(ys[i - 1]))
                && (i == ys.length - 1 || Double.isNaN(ys[i + 1]));
        if (alone) {
          double px = left + x.fraction(s.xs()[i]) * plotW;
          double py = top + (1 - y.fraction(ys[i])) * plotH;
          plot.fill(new Ellipse2D.Double(px - 4, py - 4, 8, 8));
        }
      }
    }
    for (Mark m : marks) {
      double px = left + x.fraction(m.x()) * plotW;
      double py = py(m.y(), top, plotH);
      Shape dot = new Ellipse2D.Double(px - 5, py - 5, 10, 10);
      plot.setColor(Color.WHITE);
      plot.fill(dot);
      plot.setColor(m.color());
      plot.setStroke(new BasicStroke(2.2f));
      plot.draw(dot);
    }
    plot.dispose();

    // Labels of references and marks, inside the frame, placed so that none overlaps another
    // or the legend.
    g.setFont(smallFont);
    FontMetrics sm = g.getFontMetrics();
    List<Rectangle2D> placed = new ArrayList<>();
    Rectangle2D legend = legendBox(g, left, top, right, bottom);
    if (legend != null) {
      placed.add(legend);
    }
    for (Reference r : references) {
      int w = sm.stringWidth(r.label());
      int lx;
      int ly;
      if (r.horizontal()) {
        int py = py(r.value(), top, plotH);
        ly = py - 5 < top + sm.getAscent() + 2 ? py + sm.getAscent() + 4 : py - 5;
        lx = right - 6 - w;
      } else {
        int px = (int) Math.round(left + x.fraction(r.value()) * plotW);
        lx = px + 5 + w > right ? px - 5 - w : px + 5;
        ly = top + sm.getAscent() + 6;
      }
      placed.add(label(g, r.label(), lx, ly, r.color(), sm));
    }
    for (Mark m : marks) {
      double px = left + x.fraction(m.x()) * plotW;
      double py = py(m.y(), top, plotH);
      int w = sm.stringWidth(m.label());
      int h = sm.getHeight();
      int[][] candidates = {
        {9, 6 + sm.getAscent()},
        {-9 - w, -8},
        {9, -8},
        {-9 - w, 6 + sm.getAscent()},
        {9, 6 + sm.getAscent() + h},
        {-9 - w, -8 - h},
        {9, 6 + sm.getAscent() + 2 * h},
        {-9 - w, -8 - 2 * h}
      };
      int lx = (int) Math.round(px + candidates[0][0]);
      int ly = (int) Math.round(py + candidates[0][1]);
      for (int[] c : candidates) {
        int cx = (int) Math.round(px + c[0]);
        int cy = (int) Math.round(py + c[1]);
        Rectangle2D box = new Rectangle2D.Double(cx - 2, cy - sm.getAscent(), w + 4, h);
        boolean inside =
            box.getMinX() >= left
                && box.getMaxX() <= right
                && box.getMinY() >= top
                && box.getMaxY() <= bottom;
        if (inside && placed.stream().noneMatch(box::intersects)) {
          lx = cx;
          ly = cy;
          break;
        }
      }
      placed.add(label(g, m.label(), lx, ly, m.color(), sm));
    }
    drawLegend(g, legend);
  }

  /** Words into lines no wider than {@code width} pixels. */
  private static List<String> wrap(String text, FontMetrics m, int width) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      String candidate = line.length() == 0 ? word : line + " " + word;
      if (line.length() > 0 && m.stringWidth(candidate) > width) {
        lines.add(line.toString());
        line.setLength(0);
        line.append(word);
      } else {
        line.setLength(0);
        line.append(candidate);
      }
    }
    if (line.length() > 0) {
      lines.add(line.toString());
    }
    return lines;
  }

  /** Draws a label on a light background; returns the box it covers. */
  private static Rectangle2D label(
      Graphics2D g, String text, int x, int y, Color color, FontMetrics m) {
    Rectangle2D box =
        new Rectangle2D.Double(x - 2, y - m.getAscent(), m.stringWidth(text) + 4, m.getHeight());
    g.setColor(new Color(255, 255, 255, 215));
    g.fill(box);
    g.setColor(color);
    g.drawString(text, x, y);
    return box;
  }

  private List<Object[]> legendRows() {
    List<Object[]> rows = new ArrayList<>();
    for (Series s : series) {
      rows.add(new Object[] {s.label(), s.color(), s.style()});
    }
    for (Reference r : references) {
      if (r.horizontal()) {
        rows.add(new Object[] {r.label(), r.color(), Style.DASHED});
      }
    }
    return rows;
  }

  /** Where the legend goes: bottom right, or top left when a line passes there; null if none. */
  private Rectangle2D legendBox(Graphics2D g, int left, int top, int right, int bottom) {
    List<Object[]> rows = legendRows();
    if (rows.isEmpty()) {
      return null;
    }
    FontMetrics fm = g.getFontMetrics(LEGEND_FONT);
    int width = 0;
    for (Object[] row : rows) {
      width = Math.max(width, fm.stringWidth((String) row[0]));
    }
    int rowH = fm.getHeight() + 4;
    int boxW = width + LEGEND_SAMPLE + 30;
    int boxH = rows.size() * rowH + 14;
    // Bottom right: curves rise from the left and flatten, so that corner is usually free.
    int bx = right - boxW - 12;
    int by = bottom - boxH - 12;
    if (crowded(bx, by, boxW, boxH, left, top, right, bottom)) {
      by = top + 12;
      bx = left + 12;
    }
    return new Rectangle2D.Double(bx, by, boxW, boxH);
  }

  private void drawLegend(Graphics2D g, Rectangle2D box) {
    if (box == null) {
      return;
    }
    List<Object[]> rows = legendRows();
    g.setFont(LEGEND_FONT);
    FontMetrics fm = g.getFontMetrics();
    int rowH = fm.getHeight() + 4;
    int bx = (int) box.getX();
    int by = (int) box.getY();
    g.setColor(new Color(255, 255, 255, 235));
    g.fillRoundRect(bx, by, (int) box.getWidth(), (int) box.getHeight(), 8, 8);
    g.setColor(new Color(0xBBBBBB));
    g.setStroke(new BasicStroke(1f));
    g.drawRoundRect(bx, by, (int) box.getWidth(), (int) box.getHeight(), 8, 8);
    int ry = by + 7;
    for (Object[] row : rows) {
      int cy = ry + rowH / 2;
      g.setColor((Color) row[1]);
      g.setStroke(stroke((Style) row[2], 2.6f));
      g.draw(new Line2D.Double(bx + 10, cy, bx + 10 + LEGEND_SAMPLE, cy));
      g.setColor(TEXT);
      g.drawString((String) row[0], bx + 20 + LEGEND_SAMPLE, cy + fm.getAscent() / 2 - 2);
      ry += rowH;
    }
  }

  /** Whether a series passes through the box (then the legend moves to the top left). */
  private boolean crowded(
      int bx, int by, int bw, int bh, int left, int top, int right, int bottom) {
    int plotW = right - left;
    int plotH = bottom - top;
    for (Series s : series) {
      for (int i = 0; i < s.xs().length; i++) {
        if (Double.isNaN(s.ys()[i])) {
          continue;
        }
        double px = left + x.fraction(s.xs()[i]) * plotW;
        double py = top + (1 - y.fraction(s.ys()[i])) * plotH;
        if (px >= bx && px <= bx + bw && py >= by && py <= by + bh) {
          return true;
        }
      }
    }
    return false;
  }

  private Path2D path(Series s, int left, int top, int plotW, int plotH) {
    Path2D.Double path = new Path2D.Double();
    boolean pen = false;
    for (int i = 0; i < s.xs().length; i++) {
      if (Double.isNaN(s.ys()[i])) {
        pen = false;
        continue;
      }
      double px = left + x.fraction(s.xs()[i]) * plotW;
      double py = top + (1 - y.fraction(s.ys()[i])) * plotH;
      if (pen) {
        path.lineTo(px, py);
      } else {
        path.moveTo(px, py);
        pen = true;
      }
    }
    return path;
  }

  private int py(double value, int top, int plotH) {
    return (int) Math.round(top + (1 - y.fraction(value)) * plotH);
  }

  private static Stroke stroke(Style style, float width) {
    return switch (style) {
      case SOLID -> new BasicStroke(width, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND);
      case DASHED ->
          new BasicStroke(
              width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, new float[] {9f, 6f}, 0f);
      case DOTTED ->
          new BasicStroke(
              width, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 10f, new float[] {1f, 5f}, 0f);
    };
  }
}
