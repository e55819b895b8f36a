package io.prefixlog.tools.analyze;

import io.prefixlog.analysis.mrc.Semantics;
import io.prefixlog.analysis.mrc.Weighting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code chunk-sizes.png}: the prefix-cache hit rate against capacity, one line per chunk size, on
 * a shared axis of KV bytes (or units of prompt held when the KV bytes of a token are unknown), so
 * the sizes compare at equal memory. A ring marks where each size reaches 90 % of what it can
 * achieve.
 */
final class ChunkSizeChart {
  static final String FILE = "chunk-sizes.png";

  /** Points per line: enough for the steps of small traces to show. */
  static final int POINTS = 240;

  private static final String[] BINARY = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};

  private ChunkSizeChart() {}

  static Path write(Path dir, ChunkSizeWhatIf whatIf, List<ChunkSizeWhatIf.SizeResult> results)
      throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(FILE);
    chart(whatIf, results).write(file);
    return file;
  }

  static HitRateChart chart(ChunkSizeWhatIf whatIf, List<ChunkSizeWhatIf.SizeResult> results) {
    ChunkSizeWhatIf.Plan plan = whatIf.plan();
    long[] grid = ChunkSizeWhatIf.unitGrid(results, POINTS);
    boolean kv = plan.kvBytesPerToken() > 0;
    double perUnit = kv ? plan.kvBytesPerChunk(1) : 1;
    // The axis unit: the largest binary unit (or power of 1000 for counts) the smallest x reaches,
    // so tick labels are whole numbers.
    double first = grid[0] * perUnit;
    int step = 0;
    double scale = 1;
    double base = kv ? 1024 : 1000;
    while (first / (scale * base) >= 1 && step < BINARY.length - 1) {
      scale *= base;
      step++;
    }
    String axisUnit =
        kv ? BINARY[step] : (step == 0 ? "" : new String[] {"", "k", "M", "G", "T", "P"}[step]);
    String xTitle =
        kv
            ? "KV-cache capacity (" + axisUnit + ", log scale)"
            : "capacity: "
                + (axisUnit.isEmpty() ? "" : axisUnit + " ")
                + plan.unit()
                + " of prompt held (log scale)";
    double min = grid[0] * perUnit / scale;
    double max = Math.max(grid[grid.length - 1] * perUnit / scale, min * 10);
    HitRateChart chart =
        HitRateChart.overCapacity(
            "LRU hit rate by chunk size",
            String.format(
                Locale.ROOT,
                "%s re-chunked at %d sizes; prefix cache, %% of %s; one cache per model",
                io.prefixlog.cli.Units.count(whatIf.turns(), "turn"),
                results.size(),
                plan.unit()),
            xTitle,
            "hit rate (% of " + plan.unit() + ")",
            min,
            max);
    for (int i = 0; i < results.size(); i++) {
      ChunkSizeWhatIf.SizeResult r = results.get(i);
      double[] xs = new double[grid.length];
      double[] ys = new double[grid.length];
      for (int j = 0; j < grid.length; j++) {
        xs[j] = grid[j] * perUnit / scale;
        ys[j] = ChunkSizeWhatIf.rateAt(r, grid[j]);
      }
      java.awt.Color color = HitRateChart.PALETTE[i % HitRateChart.PALETTE.length];
      chart.line(
          String.format(
              Locale.ROOT,
              "%d %s chunks (achievable %s)",
              r.size(),
              plan.unit(),
              Quantities.percent(r.curve().maxHitRate(Semantics.PREFIX, Weighting.UNITS))),
          color,
          HitRateChart.Style.SOLID,
          xs,
          ys);
      long c90 = ChunkSizeWhatIf.capacityFor(r, 0.9);
      if (c90 > 0) {
        long units = c90 * r.size();
        // The capacities are in the report; the sizes' rings sit close, so the label stays short.
        chart.mark(
            "90%",
            color,
            units * perUnit / scale,
            r.curve().hitRate(Semantics.PREFIX, Weighting.UNITS, c90));
      }
    }
    chart.note(
        kv
            ? "A chunk of N "
                + plan.unit()
                + " holds "
                + (plan.tokens()
                    ? "N tokens of KV"
                    : "about N/" + ChunkSizeWhatIf.BYTES_PER_TOKEN + " tokens of KV")
                + "; a request's partial last chunk is never cached, so larger chunks waste more"
                + " of every prompt and need longer shared prefixes to hit at all."
            : "Capacity counts the "
                + plan.unit()
                + " of prompt the cache holds, proportional to KV bytes for one model; a partial"
                + " last chunk is never cached.");
    return chart;
  }
}
