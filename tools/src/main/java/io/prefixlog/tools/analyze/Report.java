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
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The text summary of an analysis: per subject, the curve at a few capacities and the rest. */
final class Report {
  /** Log-spaced capacities searched for the largest gap between OPT and LRU. */
  static final int GAP_POINTS = 200;

  private Report() {}

  /**
   * The last lines of both analyses' output, the lookup records' and the chunk-size what-if's: the
   * files written, one a line after a blank line; nothing if none was.
   */
  static void written(PrintStream out, List<Path> files) {
    if (!files.isEmpty()) {
      out.println();
      for (Path file : files) {
        out.println("wrote " + file);
      }
      out.flush();
    }
  }

  /**
   * The summary.
   *
   * @param input what was read, one or more lines
   * @param subjects what was analysed
   * @param capacities capacities asked for ({@code --capacity}), in chunks, with their text
   */
  static String summary(
      String input, Analysis analysis, List<Subject> subjects, Map<Long, String> capacities) {
    StringBuilder s = new StringBuilder();
    s.append(input);
    if (!input.endsWith("\n")) {
      s.append('\n');
    }
    if (!analysis.sampling().isExact()) {
      s.append(
          String.format(
              Locale.ROOT,
              "  SHARDS sampling: %.4f%% of chunk hashes (rate %.6f); hit rates and the working"
                  + " set are estimates, for capacities of %s chunks and more%n",
              analysis.sampling().rate() * 100,
              analysis.sampling().rate(),
              Units.count(Subject.minCapacity(analysis.sampling()))));
    }
    if (analysis.outOfOrderRequests() > 0) {
      s.append("  note: ")
          .append(Units.count(analysis.outOfOrderRequests()))
          .append(" requests were out of timestamp order\n");
    }
    for (Subject subject : subjects) {
      s.append('\n');
      subject(s, analysis, subject, capacities, Subject.minCapacity(analysis.sampling()));
    }
    return s.toString();
  }

  private static void subject(
      StringBuilder s, Analysis analysis, Subject subject, Map<Long, String> asked, long min) {
    Curve curve = subject.curve();
    Totals totals = curve.totals();
    s.append("== ").append(subject.name());
    List<String> facts = new ArrayList<>();
    if (subject.overall()) {
      facts.add("each model has its own cache of the capacity shown");
    }
    if (subject.chunkSize() > 0 && subject.unit() != null) {
      facts.add("chunks of " + Units.count(subject.chunkSize(), unitNoun(subject.unit())));
    } else if (subject.unit() == null) {
      facts.add("mixed units: rates count chunks");
    }
    if (subject.kvBytesPerChunk() > 0) {
      facts.add(
          Quantities.binaryBytes(subject.kvBytesPerChunk())
              + " of KV per chunk, from "
              + subject.kvBytesSource());
    }
    if (!facts.isEmpty()) {
      s.append("  (").append(String.join("; ", facts)).append(')');
    }
    s.append('\n');
    String unit = subject.headlineUnit();
    s.append(
        String.format(
            Locale.ROOT,
            "  requests %s, chunk lookups %s",
            Units.count(totals.requests()),
            Units.count(totals.accesses())));
    if (subject.weighted()) {
      long tail = totals.units() - totals.accessWeight();
      s.append(
          String.format(
              Locale.ROOT,
              ", %s %s (%s in partial last chunks: always misses)",
              unit,
              Units.count(totals.units()),
              Quantities.percent(totals.units() == 0 ? 0 : (double) tail / totals.units())));
    }
    s.append('\n');
    long workingSet = curve.workingSet();
    s.append("  working set       ")
        .append(subject.capacity(workingSet))
        .append(": distinct chunks, the capacity that misses only first lookups\n");
    double max = curve.maxHitRate(Semantics.PREFIX, subject.headlineWeighting());
    s.append("  achievable        ")
        .append(Quantities.percent(max))
        .append(" of ")
        .append(unit)
        .append(" (prefix cache)");
    if (subject.weighted()) {
      s.append(", ")
          .append(Quantities.percent(curve.maxHitRate(Semantics.PREFIX, Weighting.CHUNKS)))
          .append(" of chunk lookups");
    }
    s.append(" with an unbounded cache\n");
    long[] byFraction = new long[Subject.FRACTIONS.length];
    for (int i = 0; i < byFraction.length; i++) {
      byFraction[i] = subject.capacityFor(Subject.FRACTIONS[i]);
    }
    if (max > 0) {
      s.append("  capacity for      ");
      for (int i = 0; i < byFraction.length; i++) {
        if (i > 0) {
          s.append("\n                    ");
        }
        s.append(
            String.format(
                Locale.ROOT,
                "%2.0f%% of achievable (%s): %s",
                Subject.FRACTIONS[i] * 100,
                Quantities.percent(
                    curve.hitRate(Semantics.PREFIX, subject.headlineWeighting(), byFraction[i])),
                subject.capacity(byFraction[i])));
      }
      s.append('\n');
    }
    EngineTokenTotals engine = subject.analysis().engine();
    if (engine.known()) {
      s.append(
          String.format(
              Locale.ROOT,
              "  engine actual     %s of %s prompt tokens were cached (%s of %s requests"
                  + " reported usage)%n",
              Quantities.percent(engine.hitRate()),
              Units.count(engine.promptTokens()),
              Units.count(engine.requests()),
              Units.count(totals.requests())));
    } else {
      s.append(
          "  engine actual     not reported (no prompt_tokens/cached_tokens in the records)\n");
    }
    table(s, subject, asked, byFraction, workingSet, min);
    if (subject.optimal() == null && !analysis.sampling().isExact()) {
      s.append(
          "  optimal bound     not computed: MIN cannot be estimated from a sample of chunk"
              + " hashes\n");
    }
    rolling(s, analysis, subject);
  }

  private static void table(
      StringBuilder s,
      Subject subject,
      Map<Long, String> asked,
      long[] byFraction,
      long workingSet,
      long min) {
    Curve curve = subject.curve();
    Map<Long, List<String>> rows = new TreeMap<>();
    for (long c = 10; c < workingSet; c *= 10) {
      if (c >= min) {
        rows.computeIfAbsent(c, k -> new ArrayList<>());
      }
    }
    asked.forEach(
        (c, text) -> rows.computeIfAbsent(c, k -> new ArrayList<>()).add("--capacity " + text));
    for (int i = 0; i < byFraction.length; i++) {
      if (byFraction[i] > 0) {
        rows.computeIfAbsent(byFraction[i], k -> new ArrayList<>())
            .add(String.format(Locale.ROOT, "%.0f%% of achievable", Subject.FRACTIONS[i] * 100));
      }
    }
    if (workingSet > 0) {
      rows.computeIfAbsent(workingSet, k -> new ArrayList<>()).add("working set");
    }
    if (rows.isEmpty()) {
      return;
    }
    String unit = subject.weighted() ? subject.unit() : "units";
    List<String[]> lines = new ArrayList<>();
    lines.add(
        new String[] {
          "capacity", "prefix " + unit, "prefix chunks", "per-chunk " + unit, "per-chunk chunks", ""
        });
    rows.forEach(
        (capacity, notes) ->
            lines.add(
                new String[] {
                  subject.capacity(capacity),
                  weighted(subject, curve.hitRate(Semantics.PREFIX, Weighting.UNITS, capacity)),
                  Quantities.percent(curve.hitRate(Semantics.PREFIX, Weighting.CHUNKS, capacity)),
                  weighted(subject, curve.hitRate(Semantics.PER_CHUNK, Weighting.UNITS, capacity)),
                  Quantities.percent(
                      curve.hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, capacity)),
                  String.join(", ", notes)
                }));
    int[] widths = new int[6];
    for (String[] line : lines) {
      for (int i = 0; i < line.length; i++) {
        widths[i] = Math.max(widths[i], line[i].length());
      }
    }
    s.append("  LRU hit rate by capacity:\n");
    for (String[] line : lines) {
      StringBuilder row = new StringBuilder("    ");
      row.append(pad(line[0], widths[0], false));
      for (int i = 1; i < 5; i++) {
        row.append("  ").append(pad(line[i], widths[i], true));
      }
      if (!line[5].isEmpty()) {
        row.append("  ").append(line[5]);
      }
      s.append(row.toString().stripTrailing()).append('\n');
    }
    if (subject.optimal() != null) {
      optimal(s, subject, rows.keySet());
    }
  }

  /**
   * The optimal (Belady/MIN) bound at the table's capacities next to LRU's headline rate, and where
   * the gap between them is largest.
   */
  private static void optimal(StringBuilder s, Subject subject, Iterable<Long> capacities) {
    Curve lru = subject.curve();
    Curve opt = subject.optimal();
    Weighting w = subject.headlineWeighting();
    String unit = subject.headlineUnit();
    List<String[]> lines = new ArrayList<>();
    lines.add(
        new String[] {
          "capacity", "LRU prefix " + unit, "LRU per-chunk " + unit, "OPT " + unit, "gap"
        });
    for (long capacity : capacities) {
      double prefix = lru.hitRate(Semantics.PREFIX, w, capacity);
      double bound = opt.hitRate(Semantics.PER_CHUNK, w, capacity);
      lines.add(
          new String[] {
            subject.capacity(capacity),
            Quantities.percent(prefix),
            Quantities.percent(lru.hitRate(Semantics.PER_CHUNK, w, capacity)),
            Quantities.percent(bound),
            points(bound - prefix)
          });
    }
    s.append(
        "  optimal bound     OPT = Belady/MIN per chunk: no eviction policy of a cache of that"
            + " capacity\n                    gets more (prefix caches included); gap = OPT - LRU"
            + " prefix:\n");
    int[] widths = new int[5];
    for (String[] line : lines) {
      for (int i = 0; i < line.length; i++) {
        widths[i] = Math.max(widths[i], line[i].length());
      }
    }
    for (String[] line : lines) {
      StringBuilder row = new StringBuilder("    ");
      row.append(pad(line[0], widths[0], false));
      for (int i = 1; i < line.length; i++) {
        row.append("  ").append(pad(line[i], widths[i], true));
      }
      s.append(row.toString().stripTrailing()).append('\n');
    }
    long widest = widestGap(subject);
    if (widest > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "    largest gap: %s at %s (LRU %s, OPT %s)%n",
              points(gap(subject, widest)),
              subject.capacity(widest),
              Quantities.percent(lru.hitRate(Semantics.PREFIX, w, widest)),
              Quantities.percent(opt.hitRate(Semantics.PER_CHUNK, w, widest))));
    }
  }

  /**
   * The capacity where OPT's headline rate exceeds LRU's prefix rate most, searched over {@value
   * #GAP_POINTS} log-spaced capacities up to the working set; 0 when OPT is nowhere above.
   */
  static long widestGap(Subject subject) {
    long widest = 0;
    double gap = 0;
    for (long c : Curve.logSpaced(GAP_POINTS, Math.max(1, subject.curve().workingSet()))) {
      double g = gap(subject, c);
      if (g > gap) {
        gap = g;
        widest = c;
      }
    }
    return widest;
  }

  /**
   * How far OPT's per-chunk rate is above LRU's prefix rate at {@code capacity}, in the subject's
   * headline weighting: what no eviction policy could add to what the prefix cache got.
   */
  static double gap(Subject subject, long capacity) {
    Weighting w = subject.headlineWeighting();
    return subject.optimal().hitRate(Semantics.PER_CHUNK, w, capacity)
        - subject.curve().hitRate(Semantics.PREFIX, w, capacity);
  }

  /** A difference of rates in percentage points: {@code +12.3 pts}. */
  static String points(double difference) {
    return String.format(Locale.ROOT, "%+.1f pts", difference * 100);
  }

  private static void rolling(StringBuilder s, Analysis analysis, Subject subject) {
    List<Window> windows = subject.analysis().windows();
    if (analysis.windowing().kind() == Windowing.Kind.NONE || windows.isEmpty()) {
      return;
    }
    String size =
        analysis.windowing().kind() == Windowing.Kind.TIME
            ? Quantities.windowText(Duration.ofMillis(analysis.windowing().size())) + " windows"
            : Units.count(analysis.windowing().size()) + "-request windows";
    Weighting w = subject.headlineWeighting();
    s.append(
        String.format(
            Locale.ROOT,
            "  rolling hit rate  %s (%s), prefix %s; min / median / max over windows, then"
                + " cumulative at the end:%n",
            Units.count(windows.size(), "window"),
            size,
            subject.headlineUnit()));
    for (long capacity : analysis.windowCapacities()) {
      List<Double> rates = new ArrayList<>();
      for (Window window : windows) {
        WindowHits t = window.window();
        if (t.totals().accesses() > 0) {
          rates.add(t.hitRate(Semantics.PREFIX, w, capacity));
        }
      }
      rates.sort(null);
      double cumulative =
          windows.get(windows.size() - 1).cumulative().hitRate(Semantics.PREFIX, w, capacity);
      s.append("    at ").append(subject.capacity(capacity)).append(": ");
      if (rates.isEmpty()) {
        s.append("no chunk lookups in any window");
      } else {
        s.append(Quantities.percent(rates.get(0)))
            .append(" / ")
            .append(Quantities.percent(rates.get(rates.size() / 2)))
            .append(" / ")
            .append(Quantities.percent(rates.get(rates.size() - 1)));
      }
      s.append(", cumulative ").append(Quantities.percent(cumulative)).append('\n');
    }
  }

  private static String weighted(Subject subject, double rate) {
    return subject.weighted() ? Quantities.percent(rate) : "-";
  }

  private static String unitNoun(String unit) {
    return unit.endsWith("s") ? unit.substring(0, unit.length() - 1) : unit;
  }

  private static String pad(String text, int width, boolean right) {
    String fill = " ".repeat(Math.max(0, width - text.length()));
    return right ? fill + text : text + fill;
  }
}
