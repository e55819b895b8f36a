package io.prefixlog.tools.analyze;

import io.prefixlog.analysis.mrc.Analysis;
import io.prefixlog.analysis.mrc.Curve;
import io.prefixlog.analysis.mrc.EngineTokenTotals;
import io.prefixlog.analysis.mrc.Semantics;
import io.prefixlog.analysis.mrc.Totals;
import io.prefixlog.analysis.mrc.Weighting;
import io.prefixlog.analysis.mrc.Window;
import io.prefixlog.analysis.mrc.WindowHits;
import io.prefixlog.analysis.mrc.Windowing;
import io.prefixlog.cli.Units;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The PNG charts: {@code curve.png} (hit rate vs capacity, log x axis, both semantics, the optimal
 * (Belady/MIN) bound and its largest gap to LRU when computed, the engine's actual hit rate as a
 * horizontal line) and {@code rolling.png} (windowed vs cumulative hit rate over time) of the first
 * subject (all models, or the only model), and {@code curve-<model>.png}, {@code
 * rolling-<model>.png} per model when there are several.
 */
final class Charts {
  static final String CURVE = "curve.png";
  static final String ROLLING = "rolling.png";

  /** Points per curve: enough for a smooth line across 1920 pixels. */
  static final int CURVE_POINTS = 480;

  static {
    // Charts are drawn off-screen; never ask for a display.
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
  }

  private Charts() {}

  /**
   * Writes the charts into {@code dir} (created if absent).
   *
   * @param asked the {@code --capacity} values in chunks, with their text, marked on the curves
   * @return the files written
   */
  static List<Path> write(
      Path dir, Analysis analysis, List<Subject> subjects, Map<Long, String> asked)
      throws IOException {
    Files.createDirectories(dir);
    List<Path> written = new ArrayList<>();
    Set<String> slugs = new HashSet<>();
    for (int i = 0; i < subjects.size(); i++) {
      Subject subject = subjects.get(i);
      String suffix = "";
      if (i > 0) {
        String slug = subject.slug();
        int n = 2;
        while (!slugs.add(slug)) {
          slug = subject.slug() + "-" + n++;
        }
        suffix = "-" + slug;
      }
      Path curve = dir.resolve("curve" + suffix + ".png");
      curve(subject, analysis, asked).write(curve);
      written.add(curve);
      if (!analysis.windowCapacities().isEmpty() && !subject.analysis().windows().isEmpty()) {
        Path rolling = dir.resolve("rolling" + suffix + ".png");
        rolling(subject, analysis).write(rolling);
        written.add(rolling);
      }
    }
    return written;
  }

  static HitRateChart curve(Subject subject, Analysis analysis, Map<Long, String> asked) {
    Curve curve = subject.curve();
    Curve opt = subject.optimal();
    Totals totals = curve.totals();
    long workingSet = Math.max(1, curve.workingSet());
    double xMax = Math.max(10, workingSet * 2.0);
    for (long c : asked.keySet()) {
      xMax = Math.max(xMax, c * 1.2);
    }
    double xMin = Subject.minCapacity(analysis.sampling());
    xMax = Math.max(xMax, xMin * 10);
    long kv = subject.kvBytesPerChunk();
    String perModel = subject.overall() ? " per model" : "";
    String xTitle =
        kv > 0
            ? "cache capacity"
                + perModel
                + ": chunks (log scale) · KV bytes at "
                + Quantities.binaryBytes(kv)
                + " per chunk"
            : "cache capacity" + perModel + " in chunks (log scale)";
    Weighting w = subject.headlineWeighting();
    String unit = subject.headlineUnit();
    String subtitle =
        String.format(
            Locale.ROOT,
            "%s, %s chunk lookups%s; LRU, %s",
            Units.count(totals.requests(), "request"),
            Units.count(totals.accesses()),
            subject.chunkSize() > 0 && subject.unit() != null
                ? ", chunks of " + Units.count(subject.chunkSize()) + " " + subject.unit()
                : "",
            analysis.sampling().isExact()
                ? "exact for every capacity (one pass over stack distances)"
                    + (opt != null ? "; OPT exact too (OPT stack distances)" : "")
                : String.format(
                    Locale.ROOT,
                    "SHARDS estimate from %.2f%% of chunk hashes",
                    analysis.sampling().rate() * 100));
    HitRateChart chart =
        HitRateChart.overCapacity(
            (opt == null ? "LRU hit rate" : "LRU and optimal (Belady/MIN) hit rate")
                + " vs cache capacity: "
                + subject.name(),
            subtitle,
            xTitle,
            "hit rate (% of " + unit + ")",
            xMin,
            xMax);
    double[] xs = new double[CURVE_POINTS];
    double[] prefix = new double[CURVE_POINTS];
    double[] perChunk = new double[CURVE_POINTS];
    double[] optimal = new double[CURVE_POINTS];
    for (int i = 0; i < CURVE_POINTS; i++) {
      double c = xMin * Math.exp(Math.log(xMax / xMin) * i / (CURVE_POINTS - 1));
      long capacity = (long) Math.floor(c);
      xs[i] = c;
      prefix[i] = curve.hitRate(Semantics.PREFIX, w, capacity);
      perChunk[i] = curve.hitRate(Semantics.PER_CHUNK, w, capacity);
      if (opt != null) {
        optimal[i] = opt.hitRate(Semantics.PER_CHUNK, w, capacity);
      }
    }
    chart.line(
        "prefix cache: a request hits its leading run of cached chunks",
        HitRateChart.PALETTE[0],
        HitRateChart.Style.SOLID,
        xs,
        prefix);
    chart.line(
        "per chunk: every cached chunk hits",
        HitRateChart.PALETTE[1],
        HitRateChart.Style.DASHED,
        xs,
        perChunk);
    if (opt != null) {
      chart.line(
          "OPT (Belady/MIN), per chunk: the most any eviction policy gets",
          HitRateChart.PALETTE[3],
          HitRateChart.Style.SOLID,
          xs,
          optimal);
    }
    EngineTokenTotals engine = subject.analysis().engine();
    if (engine.known() && !Double.isNaN(engine.hitRate())) {
      chart.horizontal(
          "engine actual: " + Quantities.percent(engine.hitRate()) + " of prompt tokens cached",
          HitRateChart.ENGINE,
          engine.hitRate());
    }
    chart.vertical(
        "working set " + Quantities.shortCount(workingSet) + " chunks",
        HitRateChart.PALETTE[2],
        workingSet);
    for (double fraction : Subject.FRACTIONS) {
      long c = subject.capacityFor(fraction);
      if (c > 0) {
        chart.mark(
            String.format(
                Locale.ROOT, "%.0f%% of max: %s", fraction * 100, shortCapacity(subject, c)),
            HitRateChart.PALETTE[0],
            c,
            curve.hitRate(Semantics.PREFIX, w, c));
      }
    }
    long widest = opt == null ? 0 : Report.widestGap(subject);
    if (widest > 0) {
      chart.mark(
          String.format(
              Locale.ROOT,
              "largest gap %s at %s",
              Report.points(Report.gap(subject, widest)),
              shortCapacity(subject, widest)),
          HitRateChart.PALETTE[3],
          widest,
          opt.hitRate(Semantics.PER_CHUNK, w, widest));
    }
    asked.forEach(
        (c, text) ->
            chart.mark(
                "--capacity "
                    + text
                    + ": "
                    + Quantities.percent(curve.hitRate(Semantics.PREFIX, w, c)),
                HitRateChart.PALETTE[6],
                c,
                curve.hitRate(Semantics.PREFIX, w, c)));
    chart.note(
        (subject.overall() ? "Each model has its own cache of the capacity shown. " : "")
            + "Achievable with an unbounded cache: "
            + Quantities.percent(curve.maxHitRate(Semantics.PREFIX, w))
            + " (prefix). Partial last chunks of requests are never cached: they count as misses."
            + (opt != null
                ? " OPT: Belady's MIN, every missed chunk inserted, the chunk used farthest in the"
                    + " future evicted; the gap to LRU is what a better eviction policy could gain"
                    + " at most."
                : "")
            + (subject.analysis().engine().known() && "bytes".equals(subject.unit())
                ? " The engine counts tokens."
                : ""));
    return chart;
  }

  static HitRateChart rolling(Subject subject, Analysis analysis) {
    List<Window> windows = subject.analysis().windows();
    Weighting w = subject.headlineWeighting();
    boolean byTime = analysis.windowing().kind() == Windowing.Kind.TIME;
    long start = windows.get(0).startMs();
    long end = windows.get(windows.size() - 1).endMs();
    String size =
        byTime
            ? Quantities.windowText(Duration.ofMillis(analysis.windowing().size())) + " windows"
            : Units.count(analysis.windowing().size()) + "-request windows";
    HitRateChart chart =
        HitRateChart.overTime(
            "Rolling hit rate over time: " + subject.name(),
            "solid: each window alone ("
                + size
                + "); dashed: cumulative since the start (LMCache's \"rolling\" rate)",
            timeTitle(start, end),
            "prefix hit rate (% of " + subject.headlineUnit() + ")",
            start,
            end);
    // A window without requests of this subject has no rate: the per-window lines break there
    // (time windows only; request windows are never empty). The cumulative rate does not change
    // over such a gap, so its line runs on.
    List<Integer> slots = new ArrayList<>();
    for (int i = 0; i < windows.size(); i++) {
      if (byTime && i > 0 && windows.get(i).index() > windows.get(i - 1).index() + 1) {
        slots.add(-1);
      }
      slots.add(i);
    }
    int n = slots.size();
    double[] mid = new double[n];
    double[] ends = new double[n];
    for (int k = 0; k < n; k++) {
      int i = slots.get(k);
      Window window = windows.get(i < 0 ? slots.get(k + 1) : i);
      mid[k] = i < 0 ? window.startMs() : (window.startMs() + window.endMs()) / 2.0;
      ends[k] = byTime ? (i < 0 ? window.startMs() : window.endMs()) : mid[k];
    }
    int color = 0;
    for (long capacity : analysis.windowCapacities()) {
      double[] windowed = new double[n];
      double[] cumulative = new double[n];
      for (int k = 0; k < n; k++) {
        int i = slots.get(k);
        if (i < 0) {
          windowed[k] = Double.NaN;
          cumulative[k] = cumulativeRate(windows.get(slots.get(k - 1)), w, capacity);
          continue;
        }
        WindowHits t = windows.get(i).window();
        windowed[k] =
            t.totals().accesses() > 0 ? t.hitRate(Semantics.PREFIX, w, capacity) : Double.NaN;
        cumulative[k] = cumulativeRate(windows.get(i), w, capacity);
      }
      Color tint = HitRateChart.PALETTE[color++ % 6];
      String at = shortCapacity(subject, capacity);
      chart.line(at + ", per window", tint, HitRateChart.Style.SOLID, mid, windowed);
      chart.line(at + ", cumulative", tint, HitRateChart.Style.DASHED, ends, cumulative);
    }
    if (subject.analysis().engine().known()) {
      double[] engine = new double[n];
      for (int k = 0; k < n; k++) {
        int i = slots.get(k);
        engine[k] = i < 0 ? Double.NaN : windows.get(i).window().engine().hitRate();
      }
      chart.line(
          "engine actual, per window", HitRateChart.ENGINE, HitRateChart.Style.DOTTED, mid, engine);
    }
    return chart;
  }

  private static double cumulativeRate(Window window, Weighting w, long capacity) {
    WindowHits c = window.cumulative();
    return c.totals().accesses() > 0 ? c.hitRate(Semantics.PREFIX, w, capacity) : Double.NaN;
  }

  private static String timeTitle(long start, long end) {
    String day = java.time.Instant.ofEpochMilli(start).toString().substring(0, 10);
    String last = java.time.Instant.ofEpochMilli(end).toString().substring(0, 10);
    return "time (UTC), " + (day.equals(last) ? day : day + " to " + last);
  }

  /** {@code 12.3k chunks}, with {@code (1.5 GiB)} when the bytes per chunk are known. */
  static String shortCapacity(Subject subject, long chunks) {
    String text = Quantities.shortCount(chunks) + (chunks == 1 ? " chunk" : " chunks");
    return subject.kvBytesPerChunk() > 0
        ? text + " (" + Quantities.binaryBytes((double) chunks * subject.kvBytesPerChunk()) + ")"
        : text;
  }
}
