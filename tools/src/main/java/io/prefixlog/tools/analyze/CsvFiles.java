package io.prefixlog.tools.analyze;

import io.prefixlog.analysis.mrc.Analysis;
import io.prefixlog.analysis.mrc.Curve;
import io.prefixlog.analysis.mrc.ModelAnalysis;
import io.prefixlog.analysis.mrc.Semantics;
import io.prefixlog.analysis.mrc.Weighting;
import io.prefixlog.analysis.mrc.Window;
import io.prefixlog.analysis.mrc.WindowHits;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * {@code curve.csv} and {@code rolling.csv}: one row per subject and capacity, and per subject,
 * window and window capacity. Rates are fractions with six decimals; a rate that means nothing (no
 * lookups in a window, weighted rates over mixed units, an engine that reported nothing) is empty.
 * The overall analysis is the model {@code *}. With SHARDS sampling at rate R the curve starts at
 * ⌈1/R⌉ chunks, the smallest capacity it resolves. The {@code opt_*} columns are the optimal
 * (Belady/MIN) curve's, empty when it was not computed ({@code --no-opt}, or sampling).
 */
final class CsvFiles {
  static final String CURVE = "curve.csv";
  static final String ROLLING = "rolling.csv";

  static final String CURVE_HEADER =
      "model,unit,capacity_chunks,capacity_bytes,prefix_units,prefix_chunks,per_chunk_units,"
          + "per_chunk_chunks,opt_units,opt_chunks,opt_prefix_units,opt_prefix_chunks";
  static final String ROLLING_HEADER =
      "model,unit,window_start,window_end,requests,chunk_lookups,capacity_chunks,capacity_bytes,"
          + "window_prefix_units,cumulative_prefix_units,window_prefix_chunks,"
          + "cumulative_prefix_chunks,window_per_chunk_units,cumulative_per_chunk_units,"
          + "engine_window,engine_cumulative";

  private CsvFiles() {}

  /**
   * Writes both files into {@code dir} (created if absent); {@code rolling.csv} only when the
   * analysis has windows.
   *
   * @param points capacities per subject in {@code curve.csv}: log-spaced from 1 to the working
   *     set, plus {@code extra}
   * @return the files written
   */
  static List<Path> write(
      Path dir, Analysis analysis, List<Subject> subjects, int points, Collection<Long> extra)
      throws IOException {
    Files.createDirectories(dir);
    Path curve = dir.resolve(CURVE);
    try (BufferedWriter out = Files.newBufferedWriter(curve, StandardCharsets.UTF_8)) {
      out.write(CURVE_HEADER);
      out.write('\n');
      for (Subject subject : subjects) {
        for (long capacity :
            capacities(subject.curve(), points, extra, Subject.minCapacity(analysis.sampling()))) {
          curveRow(out, subject, capacity);
        }
      }
    }
    if (analysis.windowCapacities().isEmpty()) {
      return List.of(curve);
    }
    Path rolling = dir.resolve(ROLLING);
    try (BufferedWriter out = Files.newBufferedWriter(rolling, StandardCharsets.UTF_8)) {
      out.write(ROLLING_HEADER);
      out.write('\n');
      for (Subject subject : subjects) {
        for (Window window : subject.analysis().windows()) {
          for (long capacity : analysis.windowCapacities()) {
            rollingRow(out, subject, window, capacity);
          }
        }
      }
    }
    return List.of(curve, rolling);
  }

  /**
   * Log-spaced capacities from 1 to the working set (from {@code min}: smaller ones are not
   * resolved when sampling), and the extra ones, ascending.
   */
  static long[] capacities(Curve curve, int points, Collection<Long> extra, long min) {
    TreeSet<Long> all = new TreeSet<>();
    for (long c : Curve.logSpaced(points, Math.max(1, curve.workingSet()))) {
      if (c >= min) {
        all.add(c);
      }
    }
    all.addAll(extra);
    return all.stream().mapToLong(Long::longValue).toArray();
  }

  private static void curveRow(BufferedWriter out, Subject subject, long capacity)
      throws IOException {
    Curve curve = subject.curve();
    StringBuilder row = new StringBuilder();
    row.append(quote(name(subject))).append(',');
    row.append(subject.unit() == null ? "" : subject.unit()).append(',');
    row.append(capacity).append(',');
    row.append(bytes(subject, capacity)).append(',');
    row.append(rates(subject, curve, Semantics.PREFIX, capacity)).append(',');
    row.append(rates(subject, curve, Semantics.PER_CHUNK, capacity)).append(',');
    // The optimal (Belady/MIN) bound is its per-chunk rate; MIN's leading runs (opt_prefix_*) are
    // what that cache would give as a prefix cache, not a bound (see docs/analyze.md).
    Curve opt = subject.optimal();
    row.append(rates(subject, opt, Semantics.PER_CHUNK, capacity)).append(',');
    row.append(rates(subject, opt, Semantics.PREFIX, capacity));
    out.write(row.append('\n').toString());
  }

  /**
   * Two fields: the hit rate of {@code curve} at {@code capacity} weighted by units (empty when the
   * subject is not weighted), then per chunk; both empty when there is no curve.
   */
  private static String rates(Subject subject, Curve curve, Semantics semantics, long capacity) {
    if (curve == null) {
      return ",";
    }
    return weighted(subject, curve.hitRate(semantics, Weighting.UNITS, capacity))
        + ','
        + rate(curve.hitRate(semantics, Weighting.CHUNKS, capacity));
  }

  private static void rollingRow(BufferedWriter out, Subject subject, Window window, long capacity)
      throws IOException {
    WindowHits w = window.window();
    WindowHits c = window.cumulative();
    StringBuilder row = new StringBuilder();
    row.append(quote(name(subject))).append(',');
    row.append(subject.unit() == null ? "" : subject.unit()).append(',');
    row.append(Instant.ofEpochMilli(window.startMs())).append(',');
    row.append(Instant.ofEpochMilli(window.endMs())).append(',');
    row.append(w.totals().requests()).append(',');
    row.append(w.totals().accesses()).append(',');
    row.append(capacity).append(',');
    row.append(bytes(subject, capacity)).append(',');
    row.append(windowRate(subject, w, Semantics.PREFIX, Weighting.UNITS, capacity)).append(',');
    row.append(windowRate(subject, c, Semantics.PREFIX, Weighting.UNITS, capacity)).append(',');
    row.append(windowRate(subject, w, Semantics.PREFIX, Weighting.CHUNKS, capacity)).append(',');
    row.append(windowRate(subject, c, Semantics.PREFIX, Weighting.CHUNKS, capacity)).append(',');
    row.append(windowRate(subject, w, Semantics.PER_CHUNK, Weighting.UNITS, capacity)).append(',');
    row.append(windowRate(subject, c, Semantics.PER_CHUNK, Weighting.UNITS, capacity));
    row.append(',').append(rate(w.engine().hitRate()));
    row.append(',').append(rate(c.engine().hitRate()));
    out.write(row.append('\n').toString());
  }

  /**
   * One field: the hit rate of {@code hits} at {@code capacity}, weighted by units (empty when the
   * subject is not weighted) or per chunk; empty when the window saw no access.
   */
  private static String windowRate(
      Subject subject, WindowHits hits, Semantics semantics, Weighting weighting, long capacity) {
    if (hits.totals().accesses() == 0) {
      return "";
    }
    double hitRate = hits.hitRate(semantics, weighting, capacity);
    return weighting == Weighting.UNITS ? weighted(subject, hitRate) : rate(hitRate);
  }

  private static String name(Subject subject) {
    return subject.overall() ? ModelAnalysis.ALL_MODELS : subject.name();
  }

  private static String bytes(Subject subject, long capacity) {
    return subject.kvBytesPerChunk() > 0 ? Long.toString(capacity * subject.kvBytesPerChunk()) : "";
  }

  private static String weighted(Subject subject, double rate) {
    return subject.weighted() ? rate(rate) : "";
  }

  static String rate(double rate) {
    return Double.isNaN(rate) ? "" : String.format(Locale.ROOT, "%.6f", rate);
  }

  /** A CSV field: quoted when it holds a comma, a quote or a line break. */
  static String quote(String field) {
    if (field.indexOf(',') < 0
        && field.indexOf('"') < 0
        && field.indexOf('\n') < 0
        && field.indexOf('\r') < 0) {
      return field;
    }
    return '"' + field.replace("\"", "\"\"") + '"';
  }
}
